package ez

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// The hot path's hand-written parts hold to encoding/json: a bare command line reads as its
// decoding does, and a step's events are written as encoding/json writes them.

func TestBareRequestReadsAsDecoded(t *testing.T) {
	for _, name := range commandNames {
		for _, line := range []string{
			`{"type":"command","command":"` + name + `","params":{}}`,
			`{"type":"command","command":"` + name + `"}`,
		} {
			bare, ok := bareRequest([]byte(line))
			if !ok {
				t.Fatalf("%s is not read as a bare command", line)
			}
			var decoded request
			if err := json.Unmarshal([]byte(line), &decoded); err != nil {
				t.Fatal(err)
			}
			var p1, p2 evaluateParams // every handler decodes its params the same way
			if decodeParams(bare.Params, &p1) != nil || decodeParams(decoded.Params, &p2) != nil || p1 != p2 ||
				bare.Type != decoded.Type || bare.Command != decoded.Command {
				t.Errorf("%s: %+v bare, %+v decoded", line, bare, decoded)
			}
		}
	}
	for _, line := range []string{
		`{"type":"command","command":"nosuch","params":{}}`,
		`{"type":"command","command":"stepInto","params":{"x":1}}`,
		`{"type":"command","command":"stepInto" }`,
		`{"type":"command","command":"stepInto`,
		`{"type":"command","command":"`,
		`{"type":"event","command":"stepInto"}`,
	} {
		if req, ok := bareRequest([]byte(line)); ok {
			t.Errorf("%s read as bare: %+v", line, req)
		}
	}
}

func TestStepEventsAsJSON(t *testing.T) {
	quoted := "a \"q\" <b> é\n\x01 \xff \u2028"
	for _, data := range []any{
		stoppedData{Reason: "step", Location: location{File: "/tmp/a.kite", Line: 4, Column: 5}, Function: "main"},
		stoppedData{Reason: "breakpoint", Location: location{File: quoted, Line: -1}, BreakpointID: 3},
		stoppedData{},
		variableUpdateData{Name: "i", Value: "1", Type: "int", Scope: "global"},
		variableUpdateData{Name: quoted, Value: quoted, Type: "", FrameIndex: 2},
	} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(data); err != nil {
			t.Fatal(err)
		}
		var got []byte
		switch d := data.(type) {
		case stoppedData:
			got = d.appendJSON(nil)
		case variableUpdateData:
			got = d.appendJSON(nil)
		default:
			t.Fatalf("%v", reflect.TypeOf(data))
		}
		if string(got)+"\n" != want.String() {
			t.Errorf("got  %s\nwant %s", got, want.String())
		}
	}
}
