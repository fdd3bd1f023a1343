// String building: 200,000 small pieces joined.
function build(n) {
    const parts = [];
    for (let i = 0; i < n; i++) {
        parts.push("k" + String(i));
    }
    return parts.join(",");
}

var result = build(200000).length;
