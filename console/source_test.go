package console

import (
	"strings"
	"testing"
)

// TestSourceAt: every instruction of a frame function names its line, its function and the
// text of that line; a pc past the program is an error that says the range.
func TestSourceAt(t *testing.T) {
	src := "let n = 0\r\nfn frame() {\n  n = n + 1\n}\n"
	cart, err := Load(cart(t, src, ""))
	if err != nil {
		t.Fatal(err)
	}
	con, err := New(cart, Options{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for pc := range cart.Program.Code {
		l, err := con.SourceAt(uint64(pc))
		if err != nil {
			t.Fatal(err)
		}
		if l.Line == 3 && l.Function == "frame" && l.Text == "  n = n + 1" && l.File == cart.Program.File {
			found = true
		}
		if l.Line == 1 && l.Text != "let n = 0" {
			t.Errorf("line 1 text %q (the \\r must go)", l.Text)
		}
	}
	if !found {
		t.Error("no instruction of frame() on line 3 with its text")
	}
	n := len(cart.Program.Code)
	if _, err := con.SourceAt(uint64(n)); err == nil || !strings.Contains(err.Error(), "outside the program") {
		t.Errorf("pc past the end: %v", err)
	}
}
