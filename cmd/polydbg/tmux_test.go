package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/internal/realparts"
)

// A terminal for tests: polydbg runs in a tmux pane of its own tmux server; the test types
// with send-keys and reads the screen with capture-pane, polling until the text it waits
// for appears (never sleeping a fixed time), so a loaded machine only makes it slower.

// screenTimeout bounds each wait for text; generous, for a loaded 2-core machine.
const screenTimeout = 90 * time.Second

type pane struct {
	t    *testing.T
	sock string
}

// startPane runs argv (the built polydbg and its arguments) in a new 120x50 tmux pane with
// the environment variables env (K=V). When the program ends the pane prints "[exit N]".
func startPane(t *testing.T, env []string, argv ...string) *pane {
	t.Helper()
	realparts.Need(t, "tmux")
	p := &pane{t: t, sock: filepath.Join(t.TempDir(), "tmux.sock")}
	args := []string{"-f", "/dev/null", "new-session", "-d", "-x", "120", "-y", "50"}
	for _, kv := range append([]string{"TERM=xterm-256color"}, env...) {
		args = append(args, "-e", kv)
	}
	quoted := make([]string, len(argv))
	for i, a := range argv {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	args = append(args, strings.Join(quoted, " ")+`; echo "[exit $?]"; sleep 600`)
	p.tmux(args...)
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", p.sock, "kill-server").Run() })
	p.tmux("set-option", "-g", "history-limit", "5000")
	return p
}

func (p *pane) tmux(args ...string) string {
	p.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", p.sock}, args...)...).CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// keys sends tmux key names (Enter, Tab, Up, C-c, C-r, C-d) or words typed as they are.
func (p *pane) keys(keys ...string) {
	p.t.Helper()
	p.tmux(append([]string{"send-keys", "-t", "0"}, keys...)...)
}

// typeText types text literally (no key names).
func (p *pane) typeText(text string) {
	p.t.Helper()
	p.tmux("send-keys", "-t", "0", "-l", text)
}

// screen is the pane with its scrollback, lines joined where they wrapped.
func (p *pane) screen() string {
	p.t.Helper()
	return p.tmux("capture-pane", "-p", "-J", "-t", "0", "-S", "-5000")
}

// waitFor polls the screen until want appears at least n times and returns the screen.
func (p *pane) waitFor(want string, n int) string {
	p.t.Helper()
	deadline := time.Now().Add(screenTimeout)
	for {
		s := p.screen()
		if strings.Count(s, want) >= n {
			return s
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the screen does not show %q %d times after %v:\n%s", want, n, screenTimeout, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// do sends keys and waits until want appears once more than before.
func (p *pane) do(want string, keys ...string) string {
	p.t.Helper()
	n := strings.Count(p.screen(), want)
	p.keys(keys...)
	return p.waitFor(want, n+1)
}

// enter types a command and Enter, and waits until want appears once more than before.
func (p *pane) enter(command, want string) string {
	p.t.Helper()
	n := strings.Count(p.screen(), want)
	p.typeText(command)
	p.keys("Enter")
	return p.waitFor(want, n+1)
}

// continueAndPause continues the program and, once polydbg says "Continuing." (so the
// terminal is out of line-editing mode and Ctrl-C is a signal again), pauses it with Ctrl-C
// and waits for the stop's report, paused says: a Kite program's "Paused in ", a native
// one's "received signal SIGINT, Interrupt." (gdb's).
func (p *pane) continueAndPause(paused string) {
	p.t.Helper()
	p.enter("continue", "Continuing.")
	p.do(paused, "C-c")
}

// quitKilling quits with Ctrl-D while the program is alive: polydbg asks, as gdb, and y
// lets it kill the program and end.
func (p *pane) quitKilling() {
	p.t.Helper()
	p.do("Quit anyway? (y or n)", "C-d")
	p.do("[exit 0]", "y", "Enter")
}

// complete types text and Tab, and waits until the line being edited reads want.
func (p *pane) complete(text, want string) {
	p.t.Helper()
	p.typeText(text)
	p.keys("Tab")
	p.waitPrompt(want)
}

// promptLine is the last line of the screen that starts with the prompt.
func promptLine(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, "\n "), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "(polydbg) ") {
			return strings.TrimRight(lines[i], " ")
		}
	}
	return ""
}

// waitPrompt waits until the line being edited reads exactly line.
func (p *pane) waitPrompt(line string) {
	p.t.Helper()
	deadline := time.Now().Add(screenTimeout)
	for {
		s := p.screen()
		if promptLine(s) == line {
			return
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("the prompt line is %q, want %q:\n%s", promptLine(s), line, s)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
