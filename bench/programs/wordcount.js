// Word count: a map over a generated text of 200,000 words.
const WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda"];

function gen(n) {
    const parts = [];
    for (let i = 0; i < n; i++) {
        parts.push(WORDS[(i * 7 + i % 13) % 11]);
    }
    return parts.join(" ");
}

function count(text) {
    const counts = new Map();
    for (const w of text.split(" ")) {
        const c = counts.get(w);
        if (c !== undefined) {
            counts.set(w, c + 1);
        } else {
            counts.set(w, 1);
        }
    }
    return counts;
}

function checksum(counts) {
    let s = 0;
    WORDS.forEach(function (w, j) {
        s += counts.get(w) * (j + 1);
    });
    let distinct = 0;
    for (const w of counts.keys()) {
        distinct++;
    }
    return s * 100 + distinct;
}

var result = checksum(count(gen(200000)));
