-- Callbacks: map and filter with closures over 1,000,000 items.
local function map(xs, f)
    local out = {}
    for i = 1, #xs do
        out[i] = f(xs[i])
    end
    return out
end

local function filter(xs, f)
    local out = {}
    local n = 0
    for i = 1, #xs do
        local x = xs[i]
        if f(x) then
            n = n + 1
            out[n] = x
        end
    end
    return out
end

local function run(n)
    local xs = {}
    for i = 0, n - 1 do
        xs[i + 1] = i
    end
    local k = 3
    local ys = map(xs, function(x) return x * k + 1 end)
    local zs = filter(ys, function(y) return y % 2 == 0 end)
    local s = 0
    for i = 1, #zs do
        s = s + zs[i]
    end
    return s + #zs
end

result = run(1000000)
