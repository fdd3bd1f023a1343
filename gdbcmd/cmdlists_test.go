package gdbcmd

import (
	"strings"
	"testing"

	"github.com/polydbg/polydbg/internal/wire"
)

// A user command that runs itself stops at gdb's depth limit, saying so once; a guest
// refuses define and commands.
func TestUserCommandDepth(t *testing.T) {
	d := stoppedDebugger(t)
	var out strings.Builder
	d.out = wire.NewSyncWriter(&out)
	for _, l := range []string{"define again", "echo x", "again", "end", "again"} {
		d.Exec(l, false)
	}
	echoed, _, _ := strings.Cut(out.String(), "Max")
	if n := strings.Count(out.String(), "Max user call depth exceeded -- command aborted.\n"); n != 1 || echoed != strings.Repeat("x", maxUserDepth) {
		t.Errorf("recursion said %d times, echoed %q", n, echoed)
	}
	var gout strings.Builder
	g := Attach(d.s, Config{Out: &gout})
	g.Exec("define foo", false)
	g.Exec("commands 1", false)
	if want := "define: not here"; !strings.Contains(gout.String(), want) || !strings.Contains(gout.String(), "commands: not here") {
		t.Errorf("a guest said %q", gout.String())
	}
}

// Command lists, user commands, blocks and convenience variables answer bad input in gdb's
// words (or plainly) and leave nothing half read: the next command runs as usual.
func TestCommandListRefusals(t *testing.T) {
	d := stoppedDebugger(t)
	var out strings.Builder
	d.out = wire.NewSyncWriter(&out)
	for _, tt := range []struct{ line, want string }{
		{"commands 9", "No breakpoint number 9.\n"},
		{"commands x", "Bad breakpoint number 'x'\n"},
		{"define", "Argument required (name of command to define).\n"},
		{"define a b", "Invalid command name \"a b\".\n"},
		{"define print", "\"print\" is a built-in command: it cannot be redefined here.\n"},
		{"if", "if command requires an argument (an expression)\n"},
		{"while", "while command requires an argument (an expression)\n"},
		{"set $1x = 2", "Invalid convenience variable name \"$1x\".\n"},
		{"set $i = nosuch", "nosuch"},
		{"p $never", "$1 = void\n"},
		{"loop_break", "Undefined command: \"loop_break\"."},
		{"p 1 + 1", "$2 = 2\n"},
	} {
		out.Reset()
		d.Exec(tt.line, false)
		if !strings.Contains(out.String(), tt.want) {
			t.Errorf("%s: said %q, want %q", tt.line, out.String(), tt.want)
		}
	}
	// A condition that cannot be evaluated ends the block, saying why.
	out.Reset()
	for _, l := range []string{"if nosuch > 1", "echo ran", "end", "echo after\\n"} {
		d.Exec(l, false)
	}
	if s := out.String(); strings.Contains(s, "ran") || !strings.Contains(s, "after\n") {
		t.Errorf("a block whose condition fails: %q", s)
	}
}
