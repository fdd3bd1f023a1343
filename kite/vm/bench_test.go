package vm_test

import (
	"io"
	"testing"

	"github.com/polydbg/polydbg/kite"
	"github.com/polydbg/polydbg/kite/vm"
)

// The comparison with peers is in bench/ (its own module); this file proves, in the main
// module, that calls allocate nothing in steady state.

const fibBenchSrc = `fn fib(n) {
    if n < 2 {
        return n
    }
    return fib(n - 1) + fib(n - 2)
}
`

// fibVM runs the top level of fibBenchSrc (defining fib) and returns the VM and fib.
func fibVM(tb testing.TB, extra string) (*vm.VM, vm.Value) {
	tb.Helper()
	prog, err := kite.Compile("fib.kite", []byte(fibBenchSrc+extra), nil)
	if err != nil {
		tb.Fatal(err)
	}
	m, err := vm.New(prog, vm.Options{Stdout: io.Discard})
	if err != nil {
		tb.Fatal(err)
	}
	if err := m.Run(); err != nil {
		tb.Fatal(err)
	}
	for _, g := range m.Globals() {
		if g.Name == "fib" {
			return m, g.Value
		}
	}
	tb.Fatal("no global fib")
	return nil, vm.Nil
}

func fibGo(n int64) int64 {
	if n < 2 {
		return n
	}
	return fibGo(n-1) + fibGo(n-2)
}

// BenchmarkFib calls fib(30) (1,664,079 Kite calls) on one VM; allocs/op must be 0.
func BenchmarkFib(b *testing.B) {
	m, fib := fibVM(b, "")
	want := fibGo(30)
	if _, err := m.Call(fib, vm.Int(30)); err != nil { // warm up: the frames grow to depth 30
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		v, err := m.Call(fib, vm.Int(30))
		if err != nil || v.Int() != want {
			b.Fatalf("fib(30) = %v (%v), want %d", v, err, want)
		}
	}
}

// TestFibNoAllocs: once the VM has run, a call of fib(20) (21,891 calls) allocates nothing.
func TestFibNoAllocs(t *testing.T) {
	m, fib := fibVM(t, "")
	want := fibGo(20)
	allocs := testing.AllocsPerRun(20, func() {
		v, err := m.Call(fib, vm.Int(20))
		if err != nil || v.Int() != want {
			t.Fatalf("fib(20) = %v (%v), want %d", v, err, want)
		}
	})
	if allocs != 0 {
		t.Errorf("fib(20) allocates %.1f times per call of fib(20), want 0", allocs)
	}
}

// TestFibRunAllocsFlat: a whole run (New + Run) allocates the same whether the program
// calls fib(15) once (1,973 calls) or 20 times (39,460): at the same depth, nothing grows
// with the number of calls.
func TestFibRunAllocsFlat(t *testing.T) {
	run := func(times string) float64 {
		src := fibBenchSrc + "let s = 0\nfor i in range(0, " + times + ") {\n    s += fib(15)\n}\n"
		prog, err := kite.Compile("fib.kite", []byte(src), nil)
		if err != nil {
			t.Fatal(err)
		}
		return testing.AllocsPerRun(5, func() {
			m, err := vm.New(prog, vm.Options{Stdout: io.Discard})
			if err != nil {
				t.Fatal(err)
			}
			if err := m.Run(); err != nil {
				t.Fatal(err)
			}
		})
	}
	once, many := run("1"), run("20")
	if many > once {
		t.Errorf("a run allocates %.0f times calling fib(15) once and %.0f calling it 20 times: allocations grow with calls", once, many)
	}
}
