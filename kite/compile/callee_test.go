package compile_test

import (
	"strings"
	"testing"

	"github.com/polydbg/polydbg/kite"
	"github.com/polydbg/polydbg/kite/compile"
)

// calleesOf describes, for every CALL of the top level in pc order, the instruction that
// pushed its callee ("?" when Callee cannot tell).
func calleesOf(t *testing.T, src string) string {
	t.Helper()
	p, err := kite.Compile("t.kite", []byte(src), nil)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for pc := p.Funcs[0].Entry; pc < p.Funcs[0].End; pc++ {
		if compile.Op(p.Code[pc]) != compile.CALL {
			continue
		}
		at, ok := compile.Callee(p.Code, pc)
		if !ok {
			out = append(out, "?")
			continue
		}
		ins := p.Code[at]
		switch compile.Op(ins) {
		case compile.LOADGLOBAL:
			out = append(out, p.Globals[compile.Arg(ins)].Name)
		case compile.LOADBUILTIN:
			out = append(out, "builtin "+p.Builtins[compile.Arg(ins)])
		default:
			out = append(out, compile.Op(ins).String())
		}
	}
	return strings.Join(out, ",")
}

func TestCalleeOfCompiledCalls(t *testing.T) {
	const fns = "fn sq(x) { return x * x }\nfn add(a, b) { return a + b }\n"
	for _, c := range []struct{ src, want string }{
		{"let x = add(sq(2), sq(3))", "sq,sq,add"},
		{"let x = add(1 + sq(2) * 3, [sq(3), 4][0])", "sq,sq,add"},
		{`print(len("ab"), add(1, 2))`, "builtin len,add,builtin print"},
		{"let m = {\"k\": sq}\nlet y = m.k(2)", "index"},
		{"let f = add(sq, 1)\nlet y = sq(2)(3)", "add,sq,call"},
		{"let y = add(sq(2) and 1, 2)", "sq,?"}, // a jump among the arguments
		{"let y = (sq or add)(2)", "?"},         // the callee is computed by a jump
	} {
		if got := calleesOf(t, fns+c.src); got != c.want {
			t.Errorf("%q: callees %s, want %s", c.src, got, c.want)
		}
	}
}

// Hand-made code: a jump landing between the callee and its call, a copy, and what is not
// a call.
func TestCalleeUnclearCode(t *testing.T) {
	e := compile.Encode
	call := []uint32{e(compile.LOADGLOBAL, 0), e(compile.SMALLINT, 1), e(compile.CALL, 1), e(compile.HALT, 0)}
	if pc, ok := compile.Callee(call, 2); !ok || pc != 0 {
		t.Fatalf("plain call: %d %v", pc, ok)
	}
	for _, c := range []struct {
		name string
		code []uint32
		at   int
	}{
		{"jump into the arguments", append(call[:3:3], e(compile.JUMP, 1)), 2},
		{"jump onto the call", append(call[:3:3], e(compile.JUMPFALSE, 2)), 2},
		{"copied callee", []uint32{e(compile.LOADGLOBAL, 0), e(compile.SMALLINT, 1), e(compile.DUP2, 0), e(compile.CALL, 0)}, 3},
		{"iteration in the way", []uint32{e(compile.LOADGLOBAL, 0), e(compile.NEXT, 9), e(compile.CALL, 1)}, 2},
		{"start of the code", []uint32{e(compile.SMALLINT, 1), e(compile.CALL, 1)}, 1},
		{"not a call", call, 1},
		{"out of range", call, 7},
	} {
		if pc, ok := compile.Callee(c.code, c.at); ok {
			t.Errorf("%s: callee at %d", c.name, pc)
		}
	}
	if pc, ok := compile.Callee(append(call[:3:3], e(compile.JUMP, 0)), 2); !ok || pc != 0 {
		t.Errorf("a jump to the callee's own load is no matter: %d %v", pc, ok)
	}
}
