package dap

import (
	"strings"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

const areaProg = `struct point { int x, y; };
int counter = 7;

int area(struct point *p, int scale) {
    int sum = p->x * p->y;
    return sum * scale;
}

int main(void) {
    struct point pt = {3, 4};
    int vals[4] = {1, 2, 3, 4};
    counter += vals[2];
    return area(&pt, 2) - 24;
}
`

// gdbConsoleCommands are typed in the debug console as "-exec COMMAND" at the stop in area,
// with the frame of the index given selected in the client.
var gdbConsoleCommands = append(realparts.InFrame(0, "p sum", "p/x sum * scale", "p *p", "p p->x + scale",
	"ptype p", "whatis *p", "info args", "info locals", "bt", "x/2dw p", "p counter", "output scale",
	`printf "%d-%d\n", sum, scale`, "info line", "p $pc", "info registers rip", "info breakpoints", "info frame",
	"p/t scale", "p sizeof(struct point)", "p &counter", "ptype struct point"),
	realparts.InFrame(1, "info locals", "p vals", "p vals[1] + pt.y", "p/x vals")...)

// The debug console runs gdb's commands typed as "-exec COMMAND" (as VS Code's C/C++
// debugger does) and answers as gdb does: each answer is compared with gdb's own at the same
// stop of the same program, with the client's selected frame as gdb's.
func TestExecCommandsAsGDB(t *testing.T) {
	realparts.Need(t, "gdbserver", "gdb")
	src, exe := realparts.BuildC(t, "area", areaProg)
	c := newTestClient(t, Options{})
	c.do("initialize", map[string]any{"adapterID": "polydbg", "linesStartAt1": true})
	c.do("launch", map[string]any{"kind": "native", "program": exe})
	c.event("initialized")
	c.do("setBreakpoints", map[string]any{"source": map[string]any{"path": src}, "breakpoints": []any{map[string]any{"line": 6}}})
	c.do("configurationDone", nil)
	tid := c.event("stopped")["threadId"]
	frames := c.do("stackTrace", map[string]any{"threadId": tid})["stackFrames"].([]any)
	var ours []string
	for _, q := range gdbConsoleCommands {
		fid := frames[q.Frame].(map[string]any)["id"]
		r := c.do("evaluate", map[string]any{"expression": "-exec " + q.Cmd, "frameId": fid, "context": "repl"})
		ours = append(ours, r["result"].(string))
	}
	realparts.CompareAnswers(t, "DAP -exec", gdbConsoleCommands, ours, realparts.GDBAnswers(t, exe, "break area.c:6\nrun", gdbConsoleCommands))

	// The console completes gdb's words: subcommands, and functions where a location goes.
	for text, want := range map[string]string{"-exec info reg": "registers", "-exec break are": "area area.c:", "-exec disas": "disassemble"} {
		var labels []string
		for _, g := range c.do("completions", map[string]any{"text": text, "column": len(text) + 1})["targets"].([]any) {
			labels = append(labels, g.(map[string]any)["label"].(string))
			if g.(map[string]any)["start"] != float64(strings.LastIndex(text, " ")+1) {
				t.Errorf("completion of %q starts at %v", text, g.(map[string]any)["start"])
			}
		}
		// (libc's own arena.c and arena_get2 follow where its debug information is installed, as in gdb)
		word := text[strings.LastIndex(text, " ")+1:]
		if got := strings.Join(labels, " "); got != want && !(strings.HasPrefix(got, want+" ") && allPrefixed(labels, word)) {
			t.Errorf("completions of %q: %q, want %s", text, labels, want)
		}
	}
	// run and kill are the client's; next resumes as the client's own next would, told
	// with continued and stopped events.
	if r := c.do("evaluate", map[string]any{"expression": "-exec run", "context": "repl"}); !strings.Contains(r["result"].(string), "run: not here") {
		t.Errorf("-exec run: %q", r["result"])
	}
	if r := c.do("evaluate", map[string]any{"expression": "-exec n", "context": "repl"}); r["result"] != "" {
		t.Errorf("-exec n: %q", r["result"])
	}
	c.event("continued")
	if st := c.event("stopped"); st["reason"] != "step" {
		t.Errorf("stop after -exec n: %v", st)
	}
	if top := c.do("stackTrace", map[string]any{"threadId": tid})["stackFrames"].([]any)[0].(map[string]any); top["line"] != float64(7) {
		t.Errorf("after -exec n the program is at %v, want line 7", top)
	}
	// A breakpoint set from the console is the client's news, and is hit.
	c.do("evaluate", map[string]any{"expression": "-exec break main", "context": "repl"})
	if e := c.event("breakpoint"); e["reason"] != "new" {
		t.Errorf("breakpoint event after -exec break: %v", e)
	}
	c.do("continue", map[string]any{"threadId": tid})
	if e := c.event("exited"); e["exitCode"] != float64(0) {
		t.Errorf("exit code %v, want 0", e["exitCode"])
	}
}

// A catchpoint set in the debug console (-exec catch syscall) stops the program at the
// call and at its return, told as stops of reason "syscall".
func TestExecCatchSyscall(t *testing.T) {
	realparts.Need(t, "gdbserver")
	src, exe := realparts.BuildC(t, "calls", "#include <unistd.h>\nint main(void) {\n\tgetpid();\n\treturn 0;\n}\n")
	c := newTestClient(t, Options{})
	c.do("initialize", map[string]any{"adapterID": "polydbg", "linesStartAt1": true})
	c.do("launch", map[string]any{"kind": "native", "program": exe})
	c.event("initialized")
	c.do("setBreakpoints", map[string]any{"source": map[string]any{"path": src}, "breakpoints": []any{map[string]any{"line": 3}}})
	c.do("configurationDone", nil)
	tid := c.event("stopped")["threadId"]
	if r := c.do("evaluate", map[string]any{"expression": "-exec catch syscall getpid", "context": "repl"}); r["result"] != "Catchpoint 2 (syscall 'getpid' [39])" {
		t.Fatalf("-exec catch syscall getpid: %q", r["result"])
	}
	for _, want := range []string{"Paused on the call to getpid", "Paused on the return from getpid"} {
		c.do("continue", map[string]any{"threadId": tid})
		if st := c.event("stopped"); st["reason"] != "syscall" || st["description"] != want || st["text"] != "getpid" {
			t.Errorf("stop: %v, want %q", st, want)
		}
	}
	c.do("continue", map[string]any{"threadId": tid})
	if e := c.event("exited"); e["exitCode"] != float64(0) {
		t.Errorf("exit code %v, want 0", e["exitCode"])
	}
}

// allPrefixed reports whether every word starts with prefix.
func allPrefixed(words []string, prefix string) bool {
	for _, w := range words {
		if !strings.HasPrefix(w, prefix) {
			return false
		}
	}
	return true
}
