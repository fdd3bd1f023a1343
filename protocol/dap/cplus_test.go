package dap

import (
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// throwProg throws twice and catches both.
const throwProg = `#include <stdexcept>
#include <cstdio>
int check(int n) {
  if (n > 1) throw std::runtime_error("too big");
  return n;
}
int main() {
  int caught = 0;
  for (int i = 0; i < 4; i++) {
    try {
      check(i);
    } catch (const std::exception &e) {
      caught++;
    }
  }
  printf("%d\n", caught);
  return 0;
}
`

// A native program offers the C++ exception filters; with "cpp_throw" and "cpp_catch"
// ticked it stops where each exception is thrown (in the C++ runtime, check's frame under
// it) and where it is caught, exceptionInfo says which, of which type, with its what();
// unticking them lets it run to its end.
func TestCPlusPlusExceptionFilters(t *testing.T) {
	realparts.Need(t, "gdbserver")
	_, exe := realparts.BuildCXX(t, "throws", throwProg)
	c := newTestClient(t, Options{})
	c.do("initialize", map[string]any{"adapterID": "polydbg", "linesStartAt1": true})
	c.do("launch", map[string]any{"kind": "native", "program": exe})
	caps := c.event("capabilities")["capabilities"].(map[string]any)
	var filters []string
	for _, f := range caps["exceptionBreakpointFilters"].([]any) {
		filters = append(filters, f.(map[string]any)["filter"].(string))
	}
	if len(filters) != 3 || filters[1] != "cpp_throw" || filters[2] != "cpp_catch" {
		t.Fatalf("filters: %v", filters)
	}
	c.event("initialized")
	c.do("setExceptionBreakpoints", map[string]any{"filters": []string{"cpp_throw", "cpp_catch"}})
	c.do("configurationDone", nil)
	for _, want := range []string{"exception thrown", "exception caught"} {
		st := c.event("stopped")
		if st["reason"] != "exception" || st["text"] != want {
			t.Fatalf("stop: %v, want %q", st, want)
		}
		tid := st["threadId"]
		info := c.do("exceptionInfo", map[string]any{"threadId": tid})
		details, _ := info["details"].(map[string]any)
		if info["exceptionId"] != "std::runtime_error" || info["description"] != want+": std::runtime_error: too big" ||
			details["typeName"] != "std::runtime_error" || details["message"] != "too big" {
			t.Errorf("exceptionInfo: %v", info)
		}
		frames := c.do("stackTrace", map[string]any{"threadId": tid})["stackFrames"].([]any)
		caller := map[string]string{"exception thrown": "check", "exception caught": "main"}[want]
		if len(frames) < 2 || frames[1].(map[string]any)["name"] != caller {
			t.Errorf("%s: frames %v, want %s under the runtime's", want, frames, caller)
		}
		if want == "exception thrown" {
			c.do("continue", map[string]any{"threadId": tid})
		}
	}
	c.do("setExceptionBreakpoints", map[string]any{"filters": []string{}})
	c.do("continue", map[string]any{"threadId": 1})
	if e := c.event("exited"); e["exitCode"] != float64(0) {
		t.Errorf("exit code %v, want 0", e["exitCode"])
	}
}

// A C++ program's frames and variables in an IDE's view: methods named with their scopes,
// a std::string and a std::vector shown as gdb's printers show them, the vector's elements
// its children, a class's base class a child of its own.
func TestCPlusPlusVariables(t *testing.T) {
	realparts.Need(t, "gdbserver")
	_, exe := realparts.BuildCXX(t, "vars", `#include <string>
#include <vector>
namespace zoo {
struct Animal { int legs; };
struct Dog : Animal { std::string name; int bark(int n) const { return legs * n; } };
}
int main() {
  std::vector<int> v{4, 5};
  zoo::Dog d;
  d.legs = 4;
  d.name = "rex";
  return d.bark(2) + (int)v.size();
}
`)
	c := newTestClient(t, Options{})
	c.do("initialize", map[string]any{"adapterID": "polydbg", "linesStartAt1": true})
	c.do("launch", map[string]any{"kind": "native", "program": exe})
	c.event("initialized")
	c.do("setFunctionBreakpoints", map[string]any{"breakpoints": []any{map[string]any{"name": "zoo::Dog::bark"}}})
	c.do("configurationDone", nil)
	tid := c.event("stopped")["threadId"]
	frames := c.do("stackTrace", map[string]any{"threadId": tid})["stackFrames"].([]any)
	if name := frames[0].(map[string]any)["name"]; name != "zoo::Dog::bark" {
		t.Fatalf("top frame %v, want zoo::Dog::bark", name)
	}
	scopes := c.do("scopes", map[string]any{"frameId": frames[1].(map[string]any)["id"]})["scopes"].([]any)
	vars := c.do("variables", map[string]any{"variablesReference": scopes[0].(map[string]any)["variablesReference"]})["variables"].([]any)
	byName := map[string]map[string]any{}
	for _, v := range vars {
		m := v.(map[string]any)
		byName[m["name"].(string)] = m
	}
	if got := byName["v"]["value"]; got != "std::vector of length 2, capacity 2 = {4, 5}" {
		t.Errorf("v = %v", got)
	}
	elems := c.do("variables", map[string]any{"variablesReference": byName["v"]["variablesReference"]})["variables"].([]any)
	if len(elems) != 2 || elems[1].(map[string]any)["name"] != "[1]" || elems[1].(map[string]any)["value"] != "5" {
		t.Errorf("v's children: %v", elems)
	}
	if got := byName["d"]["value"]; got != `{<zoo::Animal> = {legs = 4}, name = "rex"}` {
		t.Errorf("d = %v", got)
	}
	kids := c.do("variables", map[string]any{"variablesReference": byName["d"]["variablesReference"]})["variables"].([]any)
	if len(kids) != 2 || kids[0].(map[string]any)["name"] != "<zoo::Animal>" || kids[1].(map[string]any)["value"] != `"rex"` {
		t.Errorf("d's children: %v", kids)
	}
}

// A C++ filter's condition is a regular expression of the exception's type (gdb's catch
// throw REGEX): only those exceptions stop the program.
func TestCPlusPlusExceptionFilterCondition(t *testing.T) {
	realparts.Need(t, "gdbserver")
	_, exe := realparts.BuildCXX(t, "kinds", `#include <stdexcept>
void f(int i) {
  if (i == 1) throw std::invalid_argument("one");
  if (i == 2) throw std::out_of_range("two");
}
int main() {
  int n = 0;
  for (int i = 0; i < 4; i++) {
    try { f(i); } catch (const std::exception &) { n++; }
  }
  return n;
}
`)
	c := newTestClient(t, Options{})
	c.do("initialize", map[string]any{"adapterID": "polydbg", "linesStartAt1": true})
	c.do("launch", map[string]any{"kind": "native", "program": exe})
	if caps := c.event("capabilities")["capabilities"].(map[string]any); caps["supportsExceptionFilterOptions"] != true {
		t.Fatalf("capabilities: %v", caps)
	}
	c.event("initialized")
	c.do("setExceptionBreakpoints", map[string]any{"filters": []string{},
		"filterOptions": []any{map[string]any{"filterId": "cpp_throw", "condition": "out_of"}}})
	c.do("configurationDone", nil)
	st := c.event("stopped")
	info := c.do("exceptionInfo", map[string]any{"threadId": st["threadId"]})
	if info["exceptionId"] != "std::out_of_range" {
		t.Fatalf("stopped at %v, want the out_of_range only", info)
	}
	c.do("continue", map[string]any{"threadId": st["threadId"]})
	if e := c.event("exited"); e["exitCode"] != float64(2) {
		t.Errorf("exit code %v, want 2", e["exitCode"])
	}
}
