package gdbremote

import (
	"testing"
	"time"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/realparts"
)

// A step into one of the program's functions stops after its prologue without looking for
// functions of that name in the libraries: with libc's debug file installed, none is read
// (it used to be, about a second at the first step into anything, several under -race).
func TestStepIntoReadsNoLibraryDebugFile(t *testing.T) {
	realparts.Need(t, "gdbserver")
	realparts.NeedLibcDebugFile(t)
	src, prog := realparts.BuildC(t, "sq", "int sq(int x) {\n\tint y = x * x;\n\treturn y;\n}\nint main(void) {\n\treturn sq(3) == 9 ? 0 : 1;\n}\n")
	tg, err := LaunchNative(testCtx(t, 20*time.Second), prog, nil, Config{})
	if err != nil {
		t.Fatal(err)
	}
	x := newSess(t, tg)
	if _, err := x.s.SetBreakpoint(engine.BreakpointSpec{Kind: engine.LineBreakpoint, File: src, Line: 6}); err != nil {
		t.Fatal(err)
	}
	if err := x.s.Start(false); err != nil {
		t.Fatal(err)
	}
	x.stopped()
	x.resume(engine.StepInto)
	if line := x.line(); line != 2 {
		t.Fatalf("stepped to line %d, want sq's first statement, 2", line)
	}
	if read := tg.Symbols().DebugFilesRead(); len(read) != 0 {
		t.Errorf("a step into sq read the libraries' debug files %v", read)
	}
}
