// Recursive fib(30): calls and returns.
function fib(n) {
    if (n < 2) {
        return n;
    }
    return fib(n - 1) + fib(n - 2);
}

var result = fib(30);
