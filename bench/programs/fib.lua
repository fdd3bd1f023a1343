-- Recursive fib(30): calls and returns.
local function fib(n)
    if n < 2 then
        return n
    end
    return fib(n - 1) + fib(n - 2)
end

result = fib(30)
