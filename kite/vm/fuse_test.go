package vm

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/polydbg/polydbg/kite/compile"
	"github.com/polydbg/polydbg/kite/syntax"
)

// Superinstructions change nothing a program or a debugger can observe: these tests run
// the same programs with and without them and compare.

func compileSrc(t *testing.T, name string, src []byte) *compile.Program {
	t.Helper()
	f, err := syntax.Parse(name, src)
	if err != nil {
		t.Fatal(err)
	}
	p, err := compile.Compile(f, src, BuiltinNames(nil))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// newVM makes a VM for p, without superinstructions if plain.
func newVM(t *testing.T, p *compile.Program, plain bool, out *bytes.Buffer) *VM {
	t.Helper()
	m, err := New(p, Options{Stdout: out, Stderr: out, MaxCycles: 50_000_000})
	if err != nil {
		t.Fatal(err)
	}
	if plain {
		m.fused = slices.Clone(m.orig)
		m.repatch()
	}
	return m
}

// fusedPrograms are the conformance programs and a few sequences that fall out of the
// fast case (floats, strings, division by zero, a range loop left early).
func fusedPrograms(t *testing.T) map[string][]byte {
	files, err := filepath.Glob("../testdata/conformance/*.kite")
	if err != nil || len(files) == 0 {
		t.Fatalf("no conformance programs (%v)", err)
	}
	progs := map[string][]byte{
		"mixed.kite": []byte(`fn f(a, b) {
    let s = 0
    for i in range(0, 30) {
        s = s + i * 2
        if i % 3 == 0 { s -= a } else { s = s + b }
        if i < 5 { continue }
        if s > 1000 { break }
    }
    let t = a + 1
    t = b + 2
    return [s, t, a < b, a == b, a != 1, a * 3 - 1]
}
fn fib(n) {
    if n < 2 { return n }
    return fib(n - 1) + fib(n - 2)
}
fn cat(a, b) { return a + b }
print(f(1, 2), f(1.5, 2.5), fib(12), cat("a", "b"), cat(1.5, 2))
print(f(2, "s"))
`),
		"callzero.kite": []byte("fn g(n) { return n }\nfn h(n) { return g(n % 0) }\nprint(h(3))\n"),
		"divzero.kite":  []byte("fn g(n) { let q = n / 0\n return q }\nprint(g(3))\n"),
		"modzero.kite":  []byte("fn g(n) { return n % 0 }\nprint(g(3))\n"),
		"cmpbad.kite":   []byte("fn g(n) { if n < 2 { return 1 } return 0 }\nprint(g(\"a\"))\n"),
		"chained.kite":  []byte("fn g(s, i) {\n s += i * 2\n let t = s - i % 3\n return [s, t] }\nprint(g(1, 2), g(1.5, 2), g(1, 2.5))\nprint(g(\"a\", 1))\n"),
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		progs[filepath.Base(f)] = src
	}
	return progs
}

// TestFusedSameResults: output, error, steps and cycles are the same with and without
// superinstructions.
func TestFusedSameResults(t *testing.T) {
	for name, src := range fusedPrograms(t) {
		f, err := syntax.Parse(name, src)
		if err != nil {
			continue // a conformance program about syntax errors
		}
		p, err := compile.Compile(f, src, BuiltinNames(nil))
		if err != nil {
			continue
		}
		type result struct {
			out           string
			err           string
			steps, cycles int64
		}
		run := func(plain bool) result {
			var out bytes.Buffer
			m := newVM(t, p, plain, &out)
			err := m.Run()
			r := result{out: out.String(), steps: m.Steps(), cycles: m.Cycles()}
			if err != nil {
				r.err = err.Error()
			}
			return r
		}
		if fused, plain := run(false), run(true); fused != plain {
			t.Errorf("%s: fused %+v\nplain %+v", name, fused, plain)
		}
	}
}

// trapLog records every trapped pc.
type trapLog struct{ pcs []int }

func (l *trapLog) Trap(pc int) error  { l.pcs = append(l.pcs, pc); return nil }
func (l *trapLog) Exception(*Error)   {}
func (l *trapLog) OutOfCycles() error { return nil }

// TestFusedTraps: a breakpoint on an instruction inside a fused sequence (not its first)
// is reached every time, and stepping by statement or by instruction stops at the same pcs,
// with or without superinstructions.
func TestFusedTraps(t *testing.T) {
	p := compileSrc(t, "t.kite", fusedPrograms(t)["mixed.kite"])
	// Every pc inside a sequence, as a breakpoint of its own.
	var inner []int
	fused := fuse(p)
	for pc := range fused {
		for k := 1; k < int(fusedLen[uint8(fused[pc])]); k++ {
			inner = append(inner, pc+k)
		}
	}
	if len(inner) == 0 {
		t.Fatal("no superinstruction in the test program")
	}
	for _, bp := range inner {
		var logs [2]trapLog
		for i, plain := range []bool{false, true} {
			var out bytes.Buffer
			m := newVM(t, p, plain, &out)
			m.SetHook(&logs[i])
			m.SetBreak(bp, true)
			if err := m.Run(); err != nil && !isRuntimeError(err) {
				t.Fatal(err)
			}
		}
		if len(logs[1].pcs) == 0 || !slices.Equal(logs[0].pcs, logs[1].pcs) {
			t.Fatalf("breakpoint at pc %d: fused traps %v, plain %v", bp, logs[0].pcs, logs[1].pcs)
		}
	}
	for _, mode := range []TrapMode{TrapStatements, TrapInstructions} {
		var logs [2]trapLog
		for i, plain := range []bool{false, true} {
			var out bytes.Buffer
			m := newVM(t, p, plain, &out)
			m.SetHook(&logs[i])
			m.SetTrapMode(mode)
			if err := m.Run(); err != nil && !isRuntimeError(err) {
				t.Fatal(err)
			}
		}
		if !slices.Equal(logs[0].pcs, logs[1].pcs) {
			t.Fatalf("trap mode %d: fused and plain runs stop at different pcs", mode)
		}
	}
}

func isRuntimeError(err error) bool { _, ok := err.(*Error); return ok }

// A packed superinstruction keeps its operator above a 16-bit index, and the fast loop reads
// a loadlocal's index inside a sequence as 16 bits: a local from 65,536 on must be in no
// sequence, at its head or inside it.
func TestFuseKeepsBigLocalsOut(t *testing.T) {
	e := compile.Encode
	big, small := 70000, 5
	for _, tc := range []struct {
		name string
		code []uint32
		want compile.Opcode // the opcode of the word fuseAt returns for code[0]
	}{
		{"small local, int, operator", []uint32{e(compile.LOADLOCAL, small), e(compile.SMALLINT, 1), e(compile.ADD, 0)}, fLKB},
		{"big local, int, operator", []uint32{e(compile.LOADLOCAL, big), e(compile.SMALLINT, 1), e(compile.ADD, 0)}, compile.LOADLOCAL},
		{"two locals, the second big", []uint32{e(compile.LOADLOCAL, small), e(compile.LOADLOCAL, big), e(compile.ADD, 0)}, compile.LOADLOCAL},
		{"global, big local", []uint32{e(compile.LOADGLOBAL, 0), e(compile.LOADLOCAL, big), e(compile.SMALLINT, 1), e(compile.SUB, 0)}, compile.LOADGLOBAL},
		{"big global", []uint32{e(compile.LOADGLOBAL, big), e(compile.LOADLOCAL, small), e(compile.SMALLINT, 1), e(compile.SUB, 0)}, compile.LOADGLOBAL},
	} {
		w := fuseAt(tc.code)
		if got := compile.Opcode(w); got != tc.want {
			t.Errorf("%s: fused to opcode %d, want %d", tc.name, got, tc.want)
		}
		if tc.want < compile.NumOpcodes && w != tc.code[0] {
			t.Errorf("%s: unfused word %#x changed to %#x", tc.name, tc.code[0], w)
		}
		if tc.want == fLKB && (w>>8&0xffff != uint32(small) || compile.Opcode(w>>24) != compile.ADD) {
			t.Errorf("%s: packed word %#x: want local %d and operator add", tc.name, w, small)
		}
	}
}
