package kitevm_test

import (
	"testing"
	"time"

	"github.com/polydbg/polydbg/backend/kitevm"
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/engine/profile"
	"github.com/polydbg/polydbg/kite"
)

// The profiler sees every statement, its numbers add up, and time spent stopped at a
// breakpoint is not charged to the program.
func TestProfileUnderTheDebugger(t *testing.T) {
	prog, err := kite.Compile("prog.kite", []byte(fibSrc), nil)
	if err != nil {
		t.Fatal(err)
	}
	prof := &profile.Profiler{}
	tg, err := kitevm.New(prog, kitevm.Options{Profiler: prof})
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, s: engine.NewSession(tg)}
	h.sub = h.s.Subscribe()
	t.Cleanup(func() { h.s.Close() })
	h.line(15)
	h.do(h.s.Start(false))
	h.stop(engine.ReasonBreakpoint, 15)
	time.Sleep(300 * time.Millisecond) // the user looks around
	h.do(h.s.Continue())
	h.exit(0)
	r := prof.Report()
	if r.TotalNs >= int64(300*time.Millisecond) {
		t.Fatalf("the stop was charged: total %v", time.Duration(r.TotalNs))
	}
	var sum, count int64
	for _, e := range r.Timeline {
		sum += e.DurNs
	}
	for _, s := range r.Sites {
		count += s.Count
	}
	if sum != r.TotalNs || count != int64(len(r.Timeline)) || count < 40 {
		t.Fatalf("timeline sums to %d of %d, %d statements in sites, %d in the timeline", sum, r.TotalNs, count, len(r.Timeline))
	}
	if m := tg.Memory(); m.Globals != 2 || m.StdoutBytes != int64(len("total 12\n")) {
		t.Fatalf("memory %+v", m)
	}
}
