package gdbcmd

import (
	"strings"
	"testing"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/wire"
)

// At a terminal (Config.Confirm set), kill, run with the program alive and quit with the
// program alive ask first, in gdb's words, and a no leaves the program as it was; without
// one, kill and quit say their question and answer it, as gdb's, and run does not ask;
// under -batch quit does not ask.
func TestQuestionsBeforeTheProgramIsLost(t *testing.T) {
	d := stoppedDebugger(t)
	var out strings.Builder
	d.out = wire.NewSyncWriter(&out)
	var asked []string
	answer := false
	d.cfg.Confirm = func(q string) bool { asked = append(asked, q); return answer }
	for _, tt := range []struct{ line, question, said string }{
		{"kill", "Kill the program being debugged? (y or n) ", "Not confirmed.\n"},
		{"run", "Start it from the beginning? (y or n) ", "The program being debugged has been started already.\nProgram not restarted.\n"},
		{"quit", "Quit anyway? (y or n) ", "A debugging session is active.\n\n\tThe program will be killed.\n\nNot confirmed.\n"},
	} {
		out.Reset()
		asked = nil
		if quit := d.exec(tt.line); quit {
			t.Errorf("%s answered no ended the session", tt.line)
		}
		if len(asked) != 1 || asked[0] != tt.question || out.String() != tt.said {
			t.Errorf("%s: asked %q, said %q; want %q, %q", tt.line, asked, out.String(), tt.question, tt.said)
		}
		if d.s.State() != engine.Stopped {
			t.Fatalf("after %s answered no the program is %v", tt.line, d.s.State())
		}
	}
	answer = true
	if !d.exec("quit") {
		t.Error("quit answered yes did not end the session")
	}

	d.cfg.Confirm = nil // commands from a pipe or a script
	out.Reset()
	if want := "A debugging session is active.\n\n\tThe program will be killed.\n\nQuit anyway? (y or n) [answered Y; input not from terminal]\n"; d.exec("quit") != true || out.String() != want {
		t.Errorf("quit without a terminal: said %q, want %q", out.String(), want)
	}
	d.cfg.Batch = true
	out.Reset()
	if d.exec("quit") != true || out.String() != "" {
		t.Errorf("quit under -batch: said %q", out.String())
	}
	d.cfg.Batch = false
	out.Reset()
	d.exec("kill")
	if want := "Kill the program being debugged? (y or n) [answered Y; input not from terminal]\n[program terminated]\n"; out.String() != want {
		t.Errorf("kill without a terminal said %q, want %q", out.String(), want)
	}
}
