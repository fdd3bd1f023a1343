package gdbcmd

import (
	"strings"
	"testing"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/wire"
)

// A guest debugger (Attach) inspects another front end's session in the frame it is told,
// keeps its value history, and refuses what would run, replace or end the program, read
// files or, read-only, change it; the session is left as it was.
func TestAttachedGuest(t *testing.T) {
	host := stoppedDebugger(t)
	var out strings.Builder
	g := Attach(host.s, Config{Out: &out, ReadOnly: true})
	run := func(frame int, line string) string {
		out.Reset()
		g.SelectFrame(frame)
		g.Exec(line, true)
		return out.String()
	}
	for _, tt := range []struct {
		frame      int
		line, want string
	}{
		{0, "p n", "$1 = 3\n"},
		{0, "p $1 * 2", "$2 = 6\n"},
		{0, "bt", "#0  work (n=3) at "},
		{1, "frame", "#1  "},
		{0, "info locals", "s = "},
		{0, "info source", "Current source file is "},
		{0, "next", "next: not here; the program is run from the debugger this console belongs to.\n"},
		{0, "run", "run: not here"},
		{0, "starti", "starti: not here"},
		{0, "with print pretty -- run", "run: not here"},
		{0, "set args < /etc/shadow", "The program's arguments cannot be changed here"},
		{0, "kill", "kill: not here"},
		{0, "source /etc/passwd", "source: not here"},
		{0, "quit", "quit: not here"},
		{0, "shell touch /tmp/polydbg-guest-ran", "shell: not here"},
		{0, "!touch /tmp/polydbg-guest-ran", "shell: not here"},
		{0, "pwd", "pwd: not here"},
		{0, "save breakpoints /tmp/polydbg-guest-saved", "save: not here"},
		{0, "set logging enabled on", "set logging: not here"},
		{0, "show environment HOME", "show environment: not here"},
		{0, "set environment X 1", "The program's environment cannot be changed here"},
		{0, "set args x", "The program's arguments cannot be changed here"},
		{0, "set var n = 4", "set: refused"},
		{0, "set n = 4", "set: refused"},
		{0, "call work(1)", "call: refused"},
		{0, "return", "return: refused"},
		{0, "p n = 4", "print: refused"},
		{0, "print/x n += 1", "print: refused"},
		{0, "p n++", "print: refused"},
		{0, "p n == 4", "$3 = false\n"},
		{0, "info proc 1", "polydbg reads the /proc files of the program it debugs only.\n"},
		{0, "info proc", "No current process: you must name one.\n"}, // a Kite program is no process
		{0, "info inferiors", "  Num  Description       Connection           Executable        \n* 1    <null> "},
		{0, "set listsize 5", ""},
		{0, "x/100000xg &n", "x: at most 65536 bytes at a time.\n"},
	} {
		if got := run(tt.frame, tt.line); !strings.HasPrefix(got, tt.want) || tt.want == "" && got != "" {
			t.Errorf("%s (frame %d): %q, want %q", tt.line, tt.frame, got, tt.want)
		}
	}
	if host.s.State() != engine.Stopped {
		t.Fatalf("the host's session is %v, want still stopped", host.s.State())
	}
	if v, err := host.s.Evaluate(0, "n", engine.EvalMode{Pure: true}); err != nil || v.Value != "3" {
		t.Fatalf("n = %v, %v after the refused set, want 3", v.Value, err)
	}
	g.Close() // a guest's Close leaves the session to its host
	if host.s.State() != engine.Stopped {
		t.Fatalf("after the guest's Close the session is %v", host.s.State())
	}
}

// A Kite function cannot be made to return early (the VM has no frame popping): return
// says so and the program stays where it was.
func TestReturnRefusedByKite(t *testing.T) {
	d := stoppedDebugger(t)
	var out strings.Builder
	d.cfg.Out = &out
	d.out = wire.NewSyncWriter(&out)
	d.Exec("return 3", false)
	if got := out.String(); !strings.Contains(got, "return: this target cannot make a function return early.\n") {
		t.Fatalf("return on Kite: %q", got)
	}
	if st := d.s.LastStop(); st == nil || st.Location.Func != "work" {
		t.Fatalf("the stop moved: %+v", st)
	}
}

// FuzzGuest: no line makes a guest run, replace or end its host's program, or panic.
func FuzzGuest(f *testing.F) {
	for _, s := range []string{"next", "c", "r", "k", "q", "source x", "u 3", "adv 4", "j 3", "set var n = 2",
		"call work(2)", "p n", "x/4x &n", "display n", "tbreak 4", "finish", "fin", "si", "ni", "interrupt",
		"thread apply all bt", "frame 9", "", "\x00", "info frame", "p $1"} {
		f.Add(s)
	}
	host := stoppedDebugger(f)
	before, _ := host.s.Stack()
	var out strings.Builder
	g := Attach(host.s, Config{Out: &out})
	f.Fuzz(func(t *testing.T, line string) {
		if len(line) > 256 {
			return
		}
		out.Reset()
		g.Exec(line, true)
		if host.s.State() != engine.Stopped {
			t.Fatalf("%q: the host's program is %v", line, host.s.State())
		}
		if now, _ := host.s.Stack(); len(now) != len(before) || now[0].Location.Line != before[0].Location.Line {
			t.Fatalf("%q: the program moved", line)
		}
	})
}

// ResumeMode names the engine's mode for the commands a host runs itself, by any name.
func TestResumeMode(t *testing.T) {
	for line, want := range map[string]int{"c": int(engine.Continue), "cont": int(engine.Continue), "n": int(engine.StepOver),
		"next": int(engine.StepOver), " s ": int(engine.StepInto), "fin": int(engine.StepOut), "si": int(engine.StepInstruction),
		"next 3": -1, "continue 2": -1, "ni": -1, "run": -1, "p x": -1, "": -1, "nosuch": -1} {
		mode, ok := ResumeMode(line)
		if got := int(mode); !ok {
			got = -1
		} else if got != want {
			t.Errorf("ResumeMode(%q) = %v, want %v", line, mode, want)
		}
		if ok != (want >= 0) {
			t.Errorf("ResumeMode(%q) ok = %v", line, ok)
		}
	}
}
