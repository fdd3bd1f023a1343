package kite

import "testing"

// and/or leave one value whichever way they go: a function full of them must not reserve
// a deeper operand stack than it uses.
func TestAndOrStackDepth(t *testing.T) {
	src := "fn f(a, b) {\n"
	for i := 0; i < 50; i++ {
		src += "    let x" + string(rune('a'+i%26)) + string(rune('a'+i/26)) + " = a and b or a\n"
	}
	src += "}\n"
	prog, err := Compile("t.kite", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := prog.Funcs[1].MaxStack; got > 3 {
		t.Errorf("MaxStack = %d, want at most 3", got)
	}
}
