package ez

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// The two example sessions of ez.md, as written there ("IDE →" lines are sent, "DBG →"
// lines are expected in this order). /path/to/test.ez stands for the Kite program and /path
// for its directory; "{...}" and "[...]" in the document match anything.
const simpleSession = `
IDE → {"type":"command","command":"initialize","params":{"file":"/path/to/test.ez","workingDir":"/path"}}
DBG → {"type":"event","event":"initialized","data":{"file":"/path/to/test.ez"}}

IDE → {"type":"command","command":"start","params":{}}
DBG → {"type":"event","event":"started","data":{}}
DBG → {"type":"event","event":"stopped","data":{"reason":"entry","location":{"file":"/path/to/test.ez","line":5,"column":1}}}

IDE → {"type":"command","command":"getVariables","params":{"frameIndex":0}}
DBG → {"type":"event","event":"variables","data":{"frameIndex":0,"variables":[]}}

IDE → {"type":"command","command":"stepInto","params":{}}
DBG → {"type":"event","event":"stopped","data":{"reason":"step","location":{"file":"/path/to/test.ez","line":6,"column":1}}}
DBG → {"type":"event","event":"variableUpdate","data":{"name":"x","value":"10","type":"int","frameIndex":0}}

IDE → {"type":"command","command":"stepInto","params":{}}
DBG → {"type":"event","event":"stopped","data":{"reason":"step","location":{"file":"/path/to/test.ez","line":7,"column":1}}}
DBG → {"type":"event","event":"variableUpdate","data":{"name":"y","value":"20","type":"int","frameIndex":0}}

IDE → {"type":"command","command":"continue","params":{}}
DBG → {"type":"event","event":"output","data":{"category":"stdout","text":"Result: 30\n"}}
DBG → {"type":"event","event":"exited","data":{"exitCode":0}}
`

const breakpointSession = `
IDE → {"type":"command","command":"initialize","params":{"file":"/path/to/test.ez"}}
DBG → {"type":"event","event":"initialized","data":{...}}

IDE → {"type":"command","command":"setBreakpoint","params":{"file":"/path/to/test.ez","line":15}}
DBG → {"type":"event","event":"breakpointSet","data":{"file":"/path/to/test.ez","line":15,"id":1}}

IDE → {"type":"command","command":"start","params":{}}
DBG → {"type":"event","event":"started","data":{}}
DBG → {"type":"event","event":"output","data":{"category":"stdout","text":"Starting...\n"}}
DBG → {"type":"event","event":"stopped","data":{"reason":"breakpoint","location":{...},"breakpointId":1}}

IDE → {"type":"command","command":"getStackTrace","params":{}}
DBG → {"type":"event","event":"stackTrace","data":{"frames":[...]}}

IDE → {"type":"command","command":"continue","params":{}}
DBG → {"type":"event","event":"exited","data":{"exitCode":0}}
`

// extensions are the fields we add to the document's events.
var extensions = map[string]bool{"function": true, "scope": true, "requestedLine": true}

// replay runs a transcript against c, replacing the document's paths.
func replay(t *testing.T, c *client, transcript, file string) {
	t.Helper()
	r := strings.NewReplacer("/path/to/test.ez", file, `"/path"`, `"`+filepath.Dir(file)+`"`,
		"{...}", "{}", `"frames":[...]`, `"frames":null`)
	for _, line := range strings.Split(transcript, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(line, "IDE → "):
			c.raw(r.Replace(strings.TrimPrefix(line, "IDE → ")) + "\n")
		case strings.HasPrefix(line, "DBG → "):
			var want struct {
				Event string         `json:"event"`
				Data  map[string]any `json:"data"`
			}
			if err := json.Unmarshal([]byte(r.Replace(strings.TrimPrefix(line, "DBG → "))), &want); err != nil {
				t.Fatalf("bad transcript line %s: %v", line, err)
			}
			if want.Data["frames"] == nil {
				delete(want.Data, "frames")
			}
			got := c.expect(want.Event)
			if !subset(want.Data, got.Data) {
				t.Fatalf("%s: got %s", line, got.Raw)
			}
			checkExtensions(t, want.Data, got.Data, got.Raw)
		}
	}
}

// checkExtensions fails when got has a key the document's example lacks that is not one
// of our documented extensions.
func checkExtensions(t *testing.T, want, got map[string]any, raw string) {
	t.Helper()
	if len(want) == 0 {
		return
	}
	for k, v := range got {
		w, ok := want[k]
		if !ok && !extensions[k] {
			t.Fatalf("undocumented field %q in %s", k, raw)
		}
		if wm, ok := w.(map[string]any); ok && len(wm) > 0 {
			if gm, ok := v.(map[string]any); ok {
				checkExtensions(t, wm, gm, raw)
			}
		}
	}
}

func TestConformanceSimpleSteppingSession(t *testing.T) {
	file := prog(t, "simple.kite")
	c := newClient(t, Options{})
	replay(t, c, simpleSession, file)
	if rest := c.rest(); len(rest) != 0 {
		t.Fatalf("more events after exited: %v", rest)
	}
}

func TestConformanceBreakpointSession(t *testing.T) {
	file := prog(t, "breakpoint.kite")
	c := newClient(t, Options{})
	replay(t, c, breakpointSession, file)
	if rest := c.rest(); len(rest) != 0 {
		t.Fatalf("more events after exited: %v", rest)
	}
}
