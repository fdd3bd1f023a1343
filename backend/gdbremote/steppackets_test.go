package gdbremote

import (
	"testing"
	"time"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/realparts"
)

// A next in main asks the stub for what the step needs only: a range step a line, not
// every register (the registers a frame needs are read when first asked for, and
// gdbserver sends the stack and frame pointers and the pc with its stop) nor main's
// caller's stack (main's frame is unwound for its CFA alone). Reading all of them cost a
// native next a third of its time (PERFORMANCE.md, session 19).
func TestNextPackets(t *testing.T) {
	realparts.Need(t, "gdbserver")
	prog := buildC(t, `int main(void) {
	long s = 0;
	for (int i = 0; i < 100000; i++) {
		s += i;
		s ^= i;
	}
	return (int)(s & 1);
}
`)
	tg, x := stoppedAtMain(t, prog, 60*time.Second)
	for range 5 {
		x.resume(engine.StepOver)
	}
	before := tg.c.Stats()
	const n = 30
	for range n {
		if st := x.resume(engine.StepOver); st.Reason != engine.ReasonStep {
			t.Fatalf("stop %+v", st)
		}
	}
	per := float64(tg.c.Stats().PacketsSent-before.PacketsSent) / n
	t.Logf("%.1f packets a next", per)
	if per > 1.5 {
		t.Errorf("%.1f packets a next in main, want a range step each (1)", per)
	}
}
