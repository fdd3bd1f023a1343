package gdbremote

import (
	"strings"
	"testing"
)

// A condition is checked without running anything: a call in it is read whole (not
// "unexpected (") and refused with the reason, as the host will not run it at each stop;
// a decided && or || side's call is read and passed over.
func TestConditionWithCalls(t *testing.T) {
	for _, c := range []struct {
		expr, want string
	}{
		{`(int)strcmp(s, "hello") == 0`, "calls a function of the program"},
		{`f(1, g(2)) > 3`, "calls a function of the program"},
		{`x > 1 && y < 2`, ""},
		{`x + (y) * 2 == 3`, ""},
		{`f(1`, "A syntax error in expression, near `'."},
	} {
		err := checkArith(c.expr)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.expr, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.expr, err, c.want)
		}
	}
}
