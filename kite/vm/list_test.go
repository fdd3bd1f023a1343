package vm

import (
	"bytes"
	"testing"
)

// TestMapFilterReadTheItemsAsTheyWere: map and filter read the list in place, yet a
// callback that changes the list (setting items, pop, append, a nested map that changes it)
// does not change what they read: the list moves to a copy before an in-place change.
func TestMapFilterReadTheItemsAsTheyWere(t *testing.T) {
	src := []byte(`let xs = [1, 2, 3, 4]
let seen = []
let ys = map(xs, fn(x) {
    append(seen, x)
    xs[3] = 100
    pop(xs)
    append(xs, 7)
    let inner = map(xs, fn(y) { xs[0] = -1
        return y })
    return x * 10
})
print(ys, seen, xs)
let zs = filter(xs, fn(x) { xs[1] = 0
    return x > 0 })
print(zs, xs)
`)
	p := compileSrc(t, "lists.kite", src)
	var out bytes.Buffer
	m := newVM(t, p, false, &out)
	if err := m.Run(); err != nil {
		t.Fatal(err)
	}
	want := "[10, 20, 30, 40] [1, 2, 3, 4] [-1, 2, 3, 7]\n[2, 3, 7] [-1, 0, 3, 7]\n" // as with a copy
	if out.String() != want {
		t.Errorf("got\n%swant\n%s", out.String(), want)
	}
}
