package bench

import (
	"fmt"
	"testing"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/kite/compile"
)

const watchIters = 1_000_000

// watchSource writes flag with the value it holds at every pass of a loop: with a write
// watchpoint on flag each write is checked, and none stops the program (but its
// definition, once).
var watchSource = fmt.Sprintf(`let flag = 0
fn work(n) {
    let s = 0
    for i in range(0, n) {
        s += i
        flag = 0
    }
    return s
}

let result = work(%d)
`, watchIters)

// runWatched runs prog under an engine session, with a write watchpoint on expr when it is
// not empty (set at the entry stop), and returns the result.
func runWatched(tb testing.TB, prog *compile.Program, expr string) int64 {
	tg, s, sub := newKiteSession(tb, prog)
	defer s.Close()
	if err := s.Start(expr != ""); err != nil {
		tb.Fatal(err)
	}
	for e := range sub.Events() {
		switch e.Kind {
		case engine.EventStopped:
			switch {
			case e.Stop.Reason == engine.ReasonEntry:
				if _, err := s.Watch(0, expr, engine.DataWrite); err != nil {
					tb.Fatal(err)
				}
			case e.Stop.Reason == engine.ReasonData && e.Stop.Text == expr+": <undefined> -> 0":
				// its definition, once
			default:
				tb.Fatalf("unexpected stop: %s %s", e.Stop.Reason, e.Stop.Text)
			}
			if err := s.Continue(); err != nil {
				tb.Fatal(err)
			}
		case engine.EventExited:
			if e.ExitCode != 0 {
				tb.Fatalf("exit %d", e.ExitCode)
			}
		}
	}
	<-tg.Done()
	n, err := kiteResult(tg.VM())
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

// BenchmarkWatchedWrite: the cost of a Kite software watchpoint per write it checks (the
// value unchanged, so no stop), against the same loop with no watchpoint, interleaved.
//
//	cd bench && go test -run '^$' -bench '^BenchmarkWatchedWrite$' -count 3
func BenchmarkWatchedWrite(b *testing.B) {
	prog := compileKite(b, "watch.kite", []byte(watchSource))
	want := goSum(watchIters)
	none, watched := pairs(b, func() {
		if got := runWatched(b, prog, ""); got != want {
			b.Fatalf("result %d, want %d", got, want)
		}
	}, func() {
		if got := runWatched(b, prog, "flag"); got != want {
			b.Fatalf("result %d, want %d", got, want)
		}
	})
	reportPair(b, [2]string{"none", "watched"}, none, watched, watchIters, "ns/write")
}
