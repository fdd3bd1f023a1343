package gdbremote

import (
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/realparts"
)

// TestStepWithoutLineInformation: at the program's entry (the dynamic loader, no line
// information, no caller), a step out is refused at once with the reason, and a step into
// or over moves by an instruction and stops with reason step, never "exception" with the
// pc unchanged (issue 12, item 9).
//
// At the first instruction (the dynamic linker's _start, which no symbol names) the unwinder
// guesses a caller from the stack, whose "return address" is argc: a step moves by an
// instruction there too, where it tried to run to address 1 and stopped with the stub's
// error (Z0,1,1: E01).
func TestStepWithoutLineInformation(t *testing.T) {
	realparts.Need(t, "gdbserver")
	prog := buildNative(t)
	for _, first := range []bool{false, true} {
		t.Run(map[bool]string{false: "entry", true: "first instruction"}[first], func(t *testing.T) {
			stepWithoutLines(t, prog, first)
		})
	}
}

func stepWithoutLines(t *testing.T, prog string, firstInstruction bool) {
	tg, err := LaunchNative(testCtx(t, 20*time.Second), prog, []string{"x"}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	x := newSess(t, tg)
	start := func() error { return x.s.Start(true) }
	if firstInstruction {
		start = x.s.StartAtFirstInstruction
	}
	if err := start(); err != nil {
		t.Fatal(err)
	}
	if st := x.stopped(); st.Reason != engine.ReasonEntry {
		t.Fatalf("first stop %+v", st)
	}
	err = x.s.Resume(engine.StepOut)
	if err == nil || !strings.Contains(err.Error(), "cannot step out") {
		t.Fatalf("step out at the entry: %v", err)
	}
	// the refused step stops again where it was, saying why
	if st := x.stopped(); st.Reason != engine.ReasonEntry || !strings.Contains(st.Text, "could not resume") {
		t.Fatalf("stop after the refused step out: %+v", st)
	}
	for _, mode := range []engine.ResumeMode{engine.StepInto, engine.StepOver} {
		before, err := tg.pc()
		if err != nil {
			t.Fatal(err)
		}
		st := x.resume(mode)
		after, _ := tg.pc()
		if st.Reason != engine.ReasonStep || after == before {
			t.Fatalf("%v: stop %+v, pc %#x -> %#x", mode, st, before, after)
		}
	}
}
