// A tight integer loop: 10M iterations of arithmetic and a branch.
function loop(n) {
    let s = 0;
    for (let i = 0; i < n; i++) {
        if (i % 3 === 0) {
            s += i * 2;
        } else {
            s -= i;
        }
    }
    return s;
}

var result = loop(10000000);
