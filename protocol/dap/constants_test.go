package dap

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// constsProg, built with -O2, has locals whose values the compiler knew (const int k,
// const double half) and one it stored nowhere (r, optimised out at the call).
const constsProg = `#include <stdio.h>
__attribute__((noinline)) static int use(int v) { asm volatile("" ::: "memory"); return v + 1; }
int main(int argc, char **argv) {
	const int k = 42;
	const double half = 0.5;
	int r = use(argc) + use(k);
	printf("%d %g\n", r, half * r);
	return 0;
}
`

// A local whose value the compiler knew instead of storing it is shown with its value and
// marked read-only and constant (presentationHint), so that an editor offers no way to set
// it; the others are not marked.
func TestConstantLocalsReadOnly(t *testing.T) {
	realparts.Need(t, "gdbserver")
	_, exe := realparts.BuildC(t, "consts", constsProg, "-O2")
	c := newTestClient(t, Options{})
	c.do("initialize", map[string]any{"adapterID": "polydbg", "linesStartAt1": true})
	c.do("launch", map[string]any{"kind": "native", "program": exe, "debugFileDirectory": []string{}})
	c.event("initialized")
	c.do("setFunctionBreakpoints", map[string]any{"breakpoints": []any{map[string]any{"name": "use"}}})
	c.do("configurationDone", nil)
	tid := c.event("stopped")["threadId"]
	frames := c.do("stackTrace", map[string]any{"threadId": tid})["stackFrames"].([]any)
	main := frames[1].(map[string]any)
	scopes := c.do("scopes", map[string]any{"frameId": main["id"]})["scopes"].([]any)
	ref := scopes[0].(map[string]any)["variablesReference"]
	hints := map[string][]any{}
	for _, v := range c.do("variables", map[string]any{"variablesReference": ref})["variables"].([]any) {
		v := v.(map[string]any)
		hint, _ := v["presentationHint"].(map[string]any)
		attrs, _ := hint["attributes"].([]any)
		hints[v["name"].(string)] = attrs
		t.Logf("%s = %v %v", v["name"], v["value"], attrs)
	}
	for _, name := range []string{"k", "half"} {
		if !slices.Contains(hints[name], any("readOnly")) || !slices.Contains(hints[name], any("constant")) {
			t.Errorf("%s: attributes %v, want readOnly and constant", name, hints[name])
		}
	}
	if _, ok := hints["r"]; !ok || len(hints["r"]) != 0 {
		t.Errorf("r: attributes %v (present %v), want none", hints["r"], ok)
	}
}

// What reading the program left out is told on the console at launch, in gdb's words: a
// dwz-compressed program whose common file is missing is debugged without its DWARF.
func TestLaunchTellsLoadWarnings(t *testing.T) {
	realparts.Need(t, "gdbserver")
	d := realparts.BuildDWZ(t, "-r")
	if err := os.Remove(d.Common); err != nil {
		t.Fatal(err)
	}
	c := newTestClient(t, Options{})
	c.do("initialize", map[string]any{"adapterID": "polydbg", "linesStartAt1": true})
	c.do("launch", map[string]any{"kind": "native", "program": d.Exe, "debugFileDirectory": []string{d.DebugDir}})
	told := false
	for _, e := range c.until("initialized") {
		body, _ := e["body"].(map[string]any)
		out, _ := body["output"].(string)
		told = told || e["event"] == "output" && strings.HasPrefix(out, "could not find '.gnu_debugaltlink' file for "+d.DebugDir)
	}
	if !told {
		t.Error("the launch did not tell that the common debug file is missing")
	}
	c.do("configurationDone", nil)
	c.until("exited")
}
