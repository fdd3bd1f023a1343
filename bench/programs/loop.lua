-- A tight integer loop: 10M iterations of arithmetic and a branch.
local function loop(n)
    local s = 0
    for i = 0, n - 1 do
        if i % 3 == 0 then
            s = s + i * 2
        else
            s = s - i
        end
    end
    return s
end

result = loop(10000000)
