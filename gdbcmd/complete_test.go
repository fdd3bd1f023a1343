package gdbcmd

import (
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/backend/kitevm"
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/wire"
	"github.com/polydbg/polydbg/kite"
)

const completeProg = `fn work(n) {
    let s = {"alpha": 1, "beta": [1, 2]}
    return n
}
let total = work(3)
`

// stoppedDebugger is a debugger on completeProg, stopped at the breakpoint in work.
func stoppedDebugger(t testing.TB) *Debugger {
	p, err := kite.Compile("c.kite", []byte(completeProg), nil)
	if err != nil {
		t.Fatal(err)
	}
	d := &Debugger{out: wire.NewSyncWriter(io.Discard), cfg: Config{
		NewSession: func() (*engine.Session, error) {
			tg, err := kitevm.New(p, kitevm.Options{})
			if err != nil {
				return nil, err
			}
			return engine.NewSession(tg), nil
		},
	}}
	if err := d.newSession(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.s.Close() })
	d.exec("break 3")
	d.exec("run")
	if d.s.State() != engine.Stopped {
		t.Fatalf("not stopped: %v", d.s.State())
	}
	return d
}

func TestComplete(t *testing.T) {
	d := stoppedDebugger(t)
	for _, tt := range []struct {
		line, head string
		want       []string
	}{
		{"brea", "", []string{"break "}},
		{"  fi", "  ", []string{"finish "}},
		{"info lo", "info ", []string{"locals "}},
		{"info ", "info ", []string{"address ", "args ", "breakpoints ", "display ", "frame ", "functions ", "globals ", "inferiors ", "line ", "locals ", "proc ", "program ",
			"registers ", "scope ", "sharedlibrary ", "signals ", "source ", "symbol ", "threads ", "types ", "variables "}},
		{"set con", "set ", []string{"confirm ", "context "}},
		{"b wo", "b ", []string{"work"}},
		{"b c.", "b ", []string{"c.kite:"}},
		{"b c.kite:", "b ", nil},
		{"p wo", "p ", []string{"work"}},
		{"display n", "display ", []string{"n"}},
		{"p n + s", "p n + ", []string{"s"}},
		{"print s[", "print s[", []string{`"alpha"]`, `"beta"]`}},
		{`p s["b`, `p s[`, []string{`"beta"]`}},
		{`p s["beta"][`, `p s["beta"][`, []string{"0]", "1]"}},
		{"p $r", "p ", nil}, // the Kite VM has no registers
		{"p n * (s", "p n * (", []string{"s"}},
		{"p s[0].", "p s[0].", nil},
		{"p 12", "p 12", nil},
		{"frobnicate x", "frobnicate x", nil},
		{"p/x", "p/x", nil},
	} {
		head, got := d.Complete(tt.line)
		if head != tt.head || !slices.Equal(got, tt.want) {
			t.Errorf("complete(%q) = %q, %q; want %q, %q", tt.line, head, got, tt.head, tt.want)
		}
	}
}

// FuzzComplete: completion never panics and keeps what was typed before the word.
func FuzzComplete(f *testing.F) {
	for _, s := range []string{"b wo", "info r", `p s["`, "p $", "set $", "x/4x $", "help br", "p/x s.", "p s[[", "\x00 \xff"} {
		f.Add(s)
	}
	d := stoppedDebugger(f)
	f.Fuzz(func(t *testing.T, line string) {
		if len(line) > 256 {
			return
		}
		head, _ := d.Complete(line)
		if !strings.HasPrefix(line, head) {
			t.Fatalf("complete(%q): head %q is not the start of the line", line, head)
		}
	})
}
