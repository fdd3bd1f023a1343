-- Word count: a map over a generated text of 200,000 words.
local WORDS = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda"}

local function gen(n)
    local parts = {}
    for i = 0, n - 1 do
        parts[i + 1] = WORDS[(i * 7 + i % 13) % 11 + 1]
    end
    return table.concat(parts, " ")
end

local function count(text)
    local counts = {}
    for w in string.gmatch(text, "[^ ]+") do
        local c = counts[w]
        if c then
            counts[w] = c + 1
        else
            counts[w] = 1
        end
    end
    return counts
end

local function checksum(counts)
    local s = 0
    for j, w in ipairs(WORDS) do
        s = s + counts[w] * j
    end
    local distinct = 0
    for w in pairs(counts) do
        distinct = distinct + 1
    end
    return s * 100 + distinct
end

result = checksum(count(gen(200000)))
