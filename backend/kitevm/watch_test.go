package kitevm_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/polydbg/polydbg/engine"
)

const watchSrc = `let total = 0
let same = 0
fn add(xs) {
    let s = 0
    for x in xs {
        s += x
    }
    let bump = fn() { s = s + 100 }
    bump()
    return s
}
for i in range(3) {
    same = 0
    total += add([i, 2])
}
let m = {"a": 1, "b": 2}
m["a"] = 5
m.b = 2
let xs = [1, 2]
append(xs, 3)
xs[0] = 1
delete(m, "a")
print(total, m, xs)
`

// watch sets a data breakpoint on expr in frame 0 of the stopped program.
func (h *harness) watch(expr string, access engine.DataAccess) engine.Watchpoint {
	h.t.Helper()
	w, can, err := h.s.DataBreakpointInfo(0, expr)
	h.do(err)
	if !slices.Contains(can, access) {
		h.t.Fatalf("%s cannot be watched for %s: %v", expr, access, can)
	}
	w.Access = access
	set, err := h.s.SetDataBreakpoints(append(h.s.DataBreakpoints(), w))
	h.do(err)
	nw := set[len(set)-1]
	if !nw.Verified {
		h.t.Fatalf("watch %s: %s", expr, nw.Message)
	}
	return nw
}

// stopsUntilExit continues until the program ends and describes each stop on the way with
// describe (its text when nil).
func (h *harness) stopsUntilExit(describe func(st *engine.Stop) string) []string {
	h.t.Helper()
	if describe == nil {
		describe = func(st *engine.Stop) string { return st.Text }
	}
	var got []string
	for {
		h.do(h.s.Continue())
		e := h.next()
		if e.Kind != engine.EventStopped {
			return got
		}
		got = append(got, describe(e.Stop))
	}
}

func TestWatchGlobalStopsOnChangeOnly(t *testing.T) {
	h := start(t, watchSrc, func(h *harness) { h.line(12) }, false)
	h.stop(engine.ReasonBreakpoint, 12)
	h.s.ClearBreakpoints()
	h.watch("total", engine.DataWrite)
	h.watch("same", engine.DataWrite) // written three times with the value it has
	got := h.stopsUntilExit(nil)
	want := []string{"total: 0 -> 102", "total: 102 -> 205", "total: 205 -> 309"}
	if !slices.Equal(got, want) {
		t.Fatalf("stops %q, want %q", got, want)
	}
}

func TestWatchStopsAfterTheWrite(t *testing.T) {
	h := start(t, watchSrc, func(h *harness) { h.line(14) }, false)
	h.stop(engine.ReasonBreakpoint, 14)
	h.s.ClearBreakpoints()
	w := h.watch("total", engine.DataWrite)
	h.do(h.s.Continue())
	st := h.stop(engine.ReasonData, 12) // the pc after the write is the loop's, as in gdb
	if st.BreakpointID != w.ID || h.eval("total") != "102" || h.eval("i") != "0" {
		t.Fatalf("stop %+v total=%s i=%s", st, h.eval("total"), h.eval("i"))
	}
}

func TestWatchLocalAndCapturedEndsWithItsFunction(t *testing.T) {
	h := start(t, watchSrc, func(h *harness) { h.line(5) }, false)
	h.stop(engine.ReasonBreakpoint, 5)
	h.s.ClearBreakpoints()
	h.watch("s", engine.DataWrite) // a local captured by bump: written by add and by bump
	var got []string
	for range 3 {
		h.do(h.s.Continue())
		e := h.next()
		if e.Kind != engine.EventStopped {
			t.Fatalf("event %+v after %q", e, got)
		}
		got = append(got, e.Stop.Text)
	}
	want := []string{"s: 0 -> 2", "s: 2 -> 102", "s: out of scope, the watchpoint is deleted as add returns"}
	if !slices.Equal(got, want) {
		t.Fatalf("stops %q, want %q", got, want)
	}
	if len(h.s.DataBreakpoints()) != 0 {
		t.Fatalf("watchpoint kept after its function returned: %+v", h.s.DataBreakpoints())
	}
	h.do(h.s.Continue())
	h.exit(0)
}

func TestWatchElements(t *testing.T) {
	h := start(t, watchSrc, func(h *harness) { h.line(17) }, false)
	h.stop(engine.ReasonBreakpoint, 17)
	h.s.ClearBreakpoints()
	h.watch(`m["a"]`, engine.DataWrite)
	h.watch("m.b", engine.DataWrite) // assigned the value it has: no stop
	h.line(20)
	h.do(h.s.Continue())
	if st := h.stop(engine.ReasonData, 18); st.Text != `m["a"]: 1 -> 5` {
		t.Fatalf("stop %q", st.Text)
	}
	h.do(h.s.Continue())
	h.stop(engine.ReasonBreakpoint, 20)
	h.s.ClearBreakpoints()
	h.watch("xs[0]", engine.DataWrite) // append leaves it, xs[0] = 1 writes what it holds
	if _, can, _ := h.s.DataBreakpointInfo(0, "xs[0]"); slices.Contains(can, engine.DataRead) {
		t.Errorf("reads of an element offered: %v", can)
	}
	got := h.stopsUntilExit(nil)
	if want := []string{`m["a"]: 5 -> <undefined>`}; !slices.Equal(got, want) {
		t.Fatalf("stops %q, want %q", got, want)
	}
}

func TestWatchReadsAndAccesses(t *testing.T) {
	src := "let n = 1\nlet k = 0\nfn get() {\n    return n\n}\nk = get() + n\nn = 7\nk = k\nprint(k)\n"
	h := start(t, src, func(h *harness) { h.line(6) }, false)
	h.stop(engine.ReasonBreakpoint, 6)
	h.s.ClearBreakpoints()
	h.watch("n", engine.DataRead)
	h.watch("k", engine.DataReadWrite)
	got := h.stopsUntilExit(func(st *engine.Stop) string { return fmt.Sprintf("%d %s", st.Location.Line, st.Text) })
	// n read in get and in the sum, not its write; k's change, then its reads (a write of
	// the value it holds is no change).
	want := []string{"4 n = 1", "6 n = 1", "7 k: 0 -> 2", "8 k = 2", "9 k = 2"}
	if !slices.Equal(got, want) {
		t.Fatalf("stops %q, want %q", got, want)
	}
}

func TestWatchInRecursionIsItsActivations(t *testing.T) {
	h := start(t, factSrc, func(h *harness) { h.line(2, func(s *engine.BreakpointSpec) { s.Condition = "n == 3" }) }, false)
	h.stop(engine.ReasonBreakpoint, 2)
	h.s.ClearBreakpoints()
	h.watch("n", engine.DataRead)
	got := h.stopsUntilExit(func(st *engine.Stop) string {
		fs, err := h.s.Stack()
		h.do(err)
		return fmt.Sprintf("%d %d %s", st.Location.Line, len(fs), st.Text)
	})
	// The reads of n by fact(3) itself (four frames), none by the calls it makes.
	want := []string{"3 4 n = 3", "3 4 n = 3", "3 4 n: out of scope, the watchpoint is deleted as fact returns"}
	if !slices.Equal(got, want) {
		t.Fatalf("stops %q, want %q", got, want)
	}
}

func TestWatchSetWhileRunning(t *testing.T) {
	src := "let i = 0\nlet seen = 0\nwhile true {\n    i += 1\n    if i == 2000000 {\n        seen = i\n        break\n    }\n}\nprint(seen)\n"
	// Stopped past seen's declaration: the write a watch set while the loop runs can see
	// is the loop's (one set before the declaration ran would see that first, rightly).
	h := start(t, src, func(h *harness) { h.line(3) }, false)
	h.stop(engine.ReasonBreakpoint, 3)
	w, _, err := h.s.DataBreakpointInfo(0, "seen")
	h.do(err)
	h.s.ClearBreakpoints()
	h.do(h.s.Continue())
	w.Access = engine.DataWrite
	if set, err := h.s.SetDataBreakpoints([]engine.Watchpoint{w}); err != nil || !set[0].Verified {
		t.Fatalf("set while running: %v %+v", err, set)
	}
	if e := h.next(); e.Kind != engine.EventStopped || e.Stop.Text != "seen: 0 -> 2000000" {
		t.Fatalf("event %+v, stop %+v", e, e.Stop)
	}
}
