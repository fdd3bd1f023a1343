package dap

import (
	"strings"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// A program's own shared library built with -g, as an IDE debugs it: a breakpoint in the
// library's source set before the program runs is pending (unverified, with an id), placed
// when the library is loaded (a breakpoint event, verified) and reached; the stack shows
// the library's frame with its source and the program's below it; its locals, its static
// and global variables read; a step in from the program goes through the PLT into the
// library's function; a function breakpoint on the library's static function, pending too.
func TestSharedLibraryNative(t *testing.T) {
	realparts.Need(t, "gdbserver")
	dir, exe, libSrc := realparts.BuildWithLibrary(t)
	c := newTestClient(t, Options{})
	c.do("initialize", map[string]any{"adapterID": "polydbg", "linesStartAt1": true})
	c.do("launch", map[string]any{"kind": "native", "program": exe})
	c.event("initialized")
	set := c.do("setBreakpoints", map[string]any{"source": map[string]any{"path": libSrc},
		"breakpoints": []any{map[string]any{"line": 12}}})["breakpoints"].([]any)
	pending := set[0].(map[string]any)
	if pending["verified"] != false || pending["id"] == nil {
		t.Fatalf("a breakpoint in the library before it is loaded: %v, want unverified with an id", pending)
	}
	fset := c.do("setFunctionBreakpoints", map[string]any{"breakpoints": []any{map[string]any{"name": "twice"}}})["breakpoints"].([]any)
	c.do("configurationDone", nil)
	placed := map[any]bool{}
	var stopped map[string]any
	for _, e := range c.until("stopped") {
		body, _ := e["body"].(map[string]any)
		if e["event"] == "breakpoint" {
			bp := body["breakpoint"].(map[string]any)
			if bp["verified"] == true {
				placed[bp["id"]] = true
			}
		}
		stopped = body
	}
	if !placed[pending["id"]] || !placed[fset[0].(map[string]any)["id"]] {
		t.Fatalf("the pending breakpoints were not placed when the library loaded: %v (line %v, function %v)", placed, pending["id"], fset[0])
	}
	tid := stopped["threadId"]
	top := func() map[string]any {
		return c.do("stackTrace", map[string]any{"threadId": tid})["stackFrames"].([]any)[0].(map[string]any)
	}
	eval := func(frame map[string]any, expr string) any {
		return c.do("evaluate", map[string]any{"expression": expr, "frameId": frame["id"]})["result"]
	}
	if f := top(); f["name"] != "twice" || f["line"] != float64(6) || f["source"].(map[string]any)["path"] != libSrc {
		t.Fatalf("first stop at %v, want twice at %s:6", f, libSrc)
	}
	c.do("continue", map[string]any{"threadId": tid})
	c.event("stopped")
	frames := c.do("stackTrace", map[string]any{"threadId": tid})["stackFrames"].([]any)
	f0, f1 := frames[0].(map[string]any), frames[1].(map[string]any)
	if f0["name"] != "foo_add" || f0["line"] != float64(12) || f1["name"] != "main" || f1["line"] != float64(8) {
		t.Fatalf("stack at the line breakpoint: %v / %v, want foo_add:12 called from main:8", f0, f1)
	}
	for expr, want := range map[string]string{"t": "3", "v": "0", "scale": "3", "counter": "0", "a->name": `0x` /* prefix */} {
		got, _ := eval(f0, expr).(string)
		if expr == "a->name" {
			if len(got) < 2 || got[:2] != want {
				t.Errorf("%s = %q", expr, got)
			}
			continue
		}
		if got != want {
			t.Errorf("%s = %q, want %q", expr, got, want)
		}
	}
	mods := c.do("modules", map[string]any{})["modules"].([]any)
	status := map[string]any{}
	for _, m := range mods {
		m := m.(map[string]any)
		status[m["name"].(string)] = m["symbolStatus"]
	}
	if status["libfoo.so"] != "Symbols loaded" || status["prog"] != "Symbols loaded" {
		t.Errorf("modules' symbols: %v, want the program's and libfoo.so's loaded", status)
	}
	// Into the library through its PLT entry: from main's call, at foo_add's first line.
	c.do("setBreakpoints", map[string]any{"source": map[string]any{"path": libSrc}, "breakpoints": []any{}})
	c.do("setFunctionBreakpoints", map[string]any{"breakpoints": []any{}})
	c.do("setBreakpoints", map[string]any{"source": map[string]any{"path": dir + "/main.c"},
		"breakpoints": []any{map[string]any{"line": 8}}})
	c.do("continue", map[string]any{"threadId": tid})
	c.event("stopped")
	c.do("stepIn", map[string]any{"threadId": tid})
	c.event("stopped")
	if f := top(); f["name"] != "foo_add" || f["line"] != float64(10) {
		t.Fatalf("step in from main's call: %v, want foo_add at line 10", f)
	}
}

// A plugin the program loads with dlopen, as an IDE debugs it: a breakpoint in the plugin's
// source, pending until the dynamic linker says it loaded the plugin (its event
// breakpoint), is placed then, without a stop of its own, and reached, with the plugin's
// frame, source and static variable; the program then runs to its end, its output whole.
func TestDlopenedLibraryNative(t *testing.T) {
	realparts.Need(t, "gdbserver")
	_, host, _, src := realparts.BuildPlugin(t)
	c := newTestClient(t, Options{})
	c.do("initialize", map[string]any{"adapterID": "polydbg", "linesStartAt1": true})
	// (libc's separate debug information, read where it is installed when a source file is
	// looked for in the libraries, takes seconds under the race detector: not this test's)
	c.do("launch", map[string]any{"kind": "native", "program": host, "debugFileDirectory": []string{}})
	c.event("initialized")
	set := c.do("setBreakpoints", map[string]any{"source": map[string]any{"path": src},
		"breakpoints": []any{map[string]any{"line": 4}}})["breakpoints"].([]any)
	if bp := set[0].(map[string]any); bp["verified"] != false || bp["id"] == nil {
		t.Fatalf("a breakpoint in a plugin not loaded yet: %v, want unverified with an id", bp)
	}
	c.do("configurationDone", nil)
	verified := false
	var stopped map[string]any
	for _, e := range c.until("stopped") {
		body, _ := e["body"].(map[string]any)
		if e["event"] == "breakpoint" {
			verified = verified || body["breakpoint"].(map[string]any)["verified"] == true
		}
		stopped = body
	}
	if !verified || stopped["reason"] != "breakpoint" {
		t.Fatalf("the plugin's breakpoint: verified %v, stop %v", verified, stopped)
	}
	tid := stopped["threadId"]
	f := c.do("stackTrace", map[string]any{"threadId": tid})["stackFrames"].([]any)[0].(map[string]any)
	if f["name"] != "plug_run" || f["line"] != float64(4) || f["source"].(map[string]any)["path"] != src {
		t.Fatalf("stopped at %v, want plug_run at %s:4", f, src)
	}
	if got := c.do("evaluate", map[string]any{"expression": "calls", "frameId": f["id"]})["result"]; got != "0" {
		t.Errorf("calls = %v, want 0", got)
	}
	c.do("setBreakpoints", map[string]any{"source": map[string]any{"path": src}, "breakpoints": []any{}})
	c.do("continue", map[string]any{"threadId": tid})
	out := ""
	for _, e := range c.until("exited") {
		if body, _ := e["body"].(map[string]any); e["event"] == "output" {
			out += body["output"].(string)
		} else if e["event"] == "exited" && body["exitCode"] != float64(0) {
			t.Errorf("exit code %v", body["exitCode"])
		}
	}
	if !strings.Contains(out, "30\n") {
		t.Errorf("the program's output %q, want its sum 30", out)
	}
}

// A function the debug console calls that reaches a breakpoint leaves the program stopped
// there, as gdb does: the evaluation fails saying so, a stopped event (breakpoint) comes,
// the stack shows the called function above a label frame for the call and the program's
// frame where it was; on continue the function returns, the program stops where it was
// before the call ("call returned"), and the stack is as it was.
func TestCallStopsAtBreakpoint(t *testing.T) {
	realparts.Need(t, "gdbserver")
	src, exe := realparts.BuildC(t, "calls", realparts.CallStopProg)
	c := newTestClient(t, Options{})
	c.do("initialize", map[string]any{"adapterID": "polydbg", "linesStartAt1": true})
	c.do("launch", map[string]any{"kind": "native", "program": exe})
	c.event("initialized")
	c.do("setBreakpoints", map[string]any{"source": map[string]any{"path": src}, "breakpoints": []any{map[string]any{"line": 13}}})
	c.do("configurationDone", nil)
	tid := c.event("stopped")["threadId"]
	stack := func() []any { return c.do("stackTrace", map[string]any{"threadId": tid})["stackFrames"].([]any) }
	main := stack()[0].(map[string]any)
	c.do("setFunctionBreakpoints", map[string]any{"breakpoints": []any{map[string]any{"name": "twice"}}})
	msg := c.fail("evaluate", map[string]any{"expression": "outer(10)", "frameId": main["id"], "context": "repl"})
	if !strings.Contains(msg, "stopped in a function called from the debugger") {
		t.Errorf("the evaluation's error: %q", msg)
	}
	if st := c.event("stopped"); st["reason"] != "function breakpoint" {
		t.Errorf("stop %v, want the breakpoint's", st)
	}
	var names []any
	var label bool
	for _, f := range stack() {
		f := f.(map[string]any)
		names = append(names, f["name"])
		label = label || f["presentationHint"] == "label"
	}
	if len(names) != 4 || names[0] != "twice" || names[1] != "outer" || names[3] != "main" || !label {
		t.Fatalf("stack in the called function: %v (a label frame: %v)", names, label)
	}
	c.do("continue", map[string]any{"threadId": tid})
	if st := c.event("stopped"); st["reason"] != "call returned" {
		t.Errorf("stop %v, want the call's return", st)
	}
	if fs := stack(); len(fs) != 1 || fs[0].(map[string]any)["line"] != float64(13) {
		t.Errorf("after the call returned: %v, want main at line 13 alone", fs)
	}
	frame := stack()[0].(map[string]any)
	if got := c.do("evaluate", map[string]any{"expression": "depth", "frameId": frame["id"]})["result"]; got != "2" {
		t.Errorf("depth = %v, want 2 (the call ran to its end)", got)
	}
}

// Module events are sent when the dynamic linker says a library was loaded or unloaded,
// while the program runs: a program that loads a plugin with dlopen and unloads it with
// dlclose, without a stop, gets "new" then "removed" for it before it exits (before, both
// waited for a stop that never came).
func TestModuleEventsWhileRunning(t *testing.T) {
	realparts.Need(t, "gdbserver")
	_, host, plugin, _ := realparts.BuildPlugin(t)
	c := newTestClient(t, Options{})
	c.do("initialize", map[string]any{"adapterID": "polydbg", "linesStartAt1": true})
	c.do("launch", map[string]any{"kind": "native", "program": host, "debugFileDirectory": []string{}})
	c.event("initialized")
	c.do("configurationDone", nil)
	var told []string
	for _, e := range c.until("exited") {
		if body, _ := e["body"].(map[string]any); e["event"] == "module" {
			if m := body["module"].(map[string]any); m["path"] == plugin {
				told = append(told, body["reason"].(string))
			}
		}
	}
	if strings.Join(told, " ") != "new removed" {
		t.Errorf("module events for the plugin: %v, want new then removed, before the exit", told)
	}
}
