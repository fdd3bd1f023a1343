package gdbremote

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/realparts"
)

// The capability interfaces on a program under gdbserver: threads by name, registers by
// number, memory while running, a reset (a restart to the entry) that every subscriber
// of the session sees.
func TestCapabilitiesNative(t *testing.T) {
	tg, x := stoppedNative(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	ths, err := tg.Threads(ctx)
	if err != nil || len(ths) != 1 || ths[0].ID == 0 || ths[0].Name == "" || ths[0].Kind != "thread" {
		t.Fatalf("Threads = %+v, %v", ths, err)
	}
	descs := tg.RegisterDescs()
	pc, ok := tg.Desc().PCReg()
	if !ok || len(descs) != len(tg.Desc().Regs) || descs[pc.Num].Name != pc.Name || descs[pc.Num].Bits != 64 {
		t.Fatalf("RegisterDescs = %+v", descs)
	}
	if v, err := tg.RegisterValue(pc.Num); err != nil || v != tg.Symbols().Entry() {
		t.Errorf("RegisterValue(pc) = %#x, %v; the entry is %#x", v, err, tg.Symbols().Entry())
	}

	counter, _, _ := tg.Symbols().Symbol("counter")
	limit, _, _ := tg.Symbols().Symbol("limit")
	if err := x.s.WriteMemory(limit, le32(1<<30)); err != nil { // runs while the test does
		t.Fatal(err)
	}
	if err := x.s.Continue(); err != nil {
		t.Fatal(err)
	}
	x.next(engine.EventContinued)
	time.Sleep(50 * time.Millisecond)
	b, err := tg.ReadLive(counter, 4)
	if err != nil || len(b) != 4 || x.s.State() != engine.Running {
		t.Fatalf("ReadLive while running = %v, %v (%v)", b, err, x.s.State())
	}
	if _, err := tg.Threads(ctx); !errors.Is(err, engine.ErrRunning) {
		t.Errorf("Threads while running: %v", err)
	}
	if _, err := tg.ReadLive(0, 4); !errors.Is(err, engine.ErrRefused) {
		t.Errorf("ReadLive at 0: %v", err)
	}

	other := x.s.Subscribe()
	h, err := x.s.Reset(ctx, true)
	if err != nil || h.Stop == nil || h.Stop.Reason != engine.ReasonReset {
		t.Fatalf("Reset = %+v, %v", h, err)
	}
	if entry := tg.Symbols().Entry(); h.Stop.Location.PC != entry {
		t.Errorf("reset stopped at %#x, not at the entry %#x", h.Stop.Location.PC, entry)
	}
	var kinds []engine.EventKind
	for len(kinds) < 2 || kinds[len(kinds)-1] != engine.EventStopped || kinds[len(kinds)-2] != engine.EventReset {
		e, err := other.Next(ctx)
		if err != nil {
			t.Fatalf("the other subscriber: %v after %v", err, kinds)
		}
		kinds = append(kinds, e.Kind)
	}
	if b, err := tg.ReadLive(counter, 4); err != nil || b[0] != 0 {
		t.Errorf("counter after the reset = %v, %v", b, err)
	}
}

// A stub that goes away while the target is stopped ends the session: nothing else would
// notice, as a stopped target sends nothing.
func TestHangupWhileStopped(t *testing.T) {
	tg, x := stoppedNative(t)
	tg.Stub().Stop()
	e := x.next(engine.EventTerminated)
	if st := x.s.State(); st != engine.Terminated {
		t.Errorf("state %v", st)
	}
	// the end says why: a lost stub, not a terminate anyone asked for
	if h := x.s.LastHalt(); e.Text != "gdbremote: the stub went away" || h.Reason != e.Text {
		t.Errorf("terminated event %q, halt reason %q", e.Text, h.Reason)
	}
}

// stoppedNative is testdata/native/loop.c under gdbserver in a session, stopped at its entry.
func stoppedNative(t *testing.T) (*Target, *sess) {
	t.Helper()
	realparts.Need(t, "gdbserver")
	tg, err := LaunchNative(testCtx(t, 20*time.Second), buildNative(t), nil, Config{})
	if err != nil {
		t.Fatal(err)
	}
	x := newSess(t, tg)
	if err := x.s.Start(true); err != nil {
		t.Fatal(err)
	}
	x.stopped()
	return tg, x
}
