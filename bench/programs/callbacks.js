// Callbacks: map and filter with closures over 1,000,000 items.
function run(n) {
    const xs = [];
    for (let i = 0; i < n; i++) {
        xs.push(i);
    }
    const k = 3;
    const ys = xs.map(function (x) { return x * k + 1; });
    const zs = ys.filter(function (y) { return y % 2 === 0; });
    let s = 0;
    for (const z of zs) {
        s += z;
    }
    return s + zs.length;
}

var result = run(1000000);
