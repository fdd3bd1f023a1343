package gdbremote

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/firmware"
	"github.com/polydbg/polydbg/internal/realparts"
)

func TestMain(m *testing.M) {
	code := m.Run()
	firmware.RemoveCorpus()
	os.Exit(code)
}

// Firmware linked without ENTRY (e_entry is the start of .text, not Reset_Handler) and with
// --gc-sections reaches its first stop at once, at Reset_Handler, on both boards.
func TestStartFirmwareWithoutEntry(t *testing.T) {
	realparts.Need(t, "qemu-system-arm")
	elf := firmware.BuildCorpus(t, firmware.Variant{Opt: "-Os", GC: true, NoEntry: true})
	for _, m := range machines {
		t.Run(m, func(t *testing.T) {
			begin := time.Now()
			tg, err := StartQEMUTarget(testCtx(t, 20*time.Second), m, elf, Config{})
			if err != nil {
				t.Fatal(err)
			}
			x := newSess(t, tg)
			if err := x.s.Start(true); err != nil {
				t.Fatal(err)
			}
			st := x.stopped()
			if st.Reason != engine.ReasonEntry || st.Location.Func != "Reset_Handler" {
				t.Fatalf("entry %+v", st)
			}
			if d := time.Since(begin); d > 2*time.Second {
				t.Errorf("first stop after %v", d)
			}
		})
	}
}

// `break leaf if v == 99` on optimised code, where v lives in a register and a location
// list says which: it stops once, with v 99 (leaf is called with 97, 98, 99).
func TestConditionOnOptimisedParameter(t *testing.T) {
	for _, b := range []firmware.Variant{{Opt: "-O1"}, {Opt: "-O2", GC: true, NoEntry: true}, {Native: true, Opt: "-O1"}, {Native: true, Opt: "-O2"}} {
		t.Run(b.String(), func(t *testing.T) {
			elf := firmware.BuildCorpus(t, b)
			var tg *Target
			var err error
			if b.Native {
				realparts.Need(t, "gdbserver")
				tg, err = LaunchNative(testCtx(t, 20*time.Second), elf, nil, Config{})
			} else {
				realparts.Need(t, "qemu-system-arm")
				tg, err = StartQEMUTarget(testCtx(t, 20*time.Second), "mps2-an385", elf, Config{})
			}
			if err != nil {
				t.Fatal(err)
			}
			x := newSess(t, tg)
			if _, err := x.s.SetBreakpoint(engine.BreakpointSpec{Kind: engine.FunctionBreakpoint, Function: "leaf", Condition: "v == 99"}); err != nil {
				t.Fatal(err)
			}
			if err := x.s.Start(false); err != nil {
				t.Fatal(err)
			}
			st := x.stopped()
			if st.Reason != engine.ReasonBreakpoint || x.eval("v") != "99" || !strings.HasPrefix(x.stackNames(), "leaf corpus_run main") {
				t.Fatalf("stop %+v v=%s stack %s", st, x.eval("v"), x.stackNames())
			}
			if n := x.eval("leaf_calls"); n != "2" {
				t.Errorf("stopped after %s calls of leaf", n)
			}
		})
	}
}

// Threads of the corpus's pthreads part: a stop in worker names its thread; selecting the
// main thread shows main's stack, selecting the worker again shows worker's, and a step
// stays on the selected thread.
func TestThreads(t *testing.T) {
	realparts.Need(t, "gdbserver")
	elf := firmware.BuildCorpus(t, firmware.Variant{Native: true, Opt: "-O0"})
	tg, err := LaunchNative(testCtx(t, 20*time.Second), elf, nil, Config{})
	if err != nil {
		t.Fatal(err)
	}
	x := newSess(t, tg)
	if _, err := x.s.SetBreakpoint(engine.BreakpointSpec{Kind: engine.LineBreakpoint, File: "native.c",
		Line: firmware.CorpusLine(t, "native.c", "worker")}); err != nil {
		t.Fatal(err)
	}
	if err := x.s.Start(false); err != nil {
		t.Fatal(err)
	}
	st := x.stopped()
	worker := st.ThreadID
	if worker == 0 || worker != tg.SelectedThread() || !strings.HasPrefix(x.stackNames(), "worker") {
		t.Fatalf("stop %+v in thread %d, stack %s", st, tg.SelectedThread(), x.stackNames())
	}
	threads, err := tg.Threads(context.Background())
	if err != nil || len(threads) < 2 {
		t.Fatalf("threads %+v %v", threads, err)
	}
	var mainID uint64
	for _, th := range threads {
		if th.ID != worker && mainID == 0 {
			mainID = th.ID
			if err := tg.SelectThread(th.ID); err != nil {
				t.Fatal(err)
			}
			if names := x.stackNames(); strings.HasPrefix(names, "worker") {
				t.Errorf("thread %d's stack is the worker's: %s", th.ID, names)
			}
		}
	}
	if err := tg.SelectThread(worker); err != nil {
		t.Fatal(err)
	}
	if names := x.stackNames(); !strings.HasPrefix(names, "worker") {
		t.Fatalf("back in the worker: %s", names)
	}
	if v := x.eval("local"); v != "10" && v != "20" {
		t.Errorf("local = %s", v)
	}
	st = x.resume(engine.StepOver)
	if st.ThreadID != worker || !strings.HasPrefix(x.stackNames(), "worker") {
		t.Errorf("the step moved to thread %d (%s), not %d", st.ThreadID, x.stackNames(), worker)
	}
}
