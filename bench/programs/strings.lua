-- String building: 200,000 small pieces joined.
local function build(n)
    local parts = {}
    for i = 0, n - 1 do
        parts[i + 1] = "k" .. tostring(i)
    end
    return table.concat(parts, ",")
end

result = #build(200000)
