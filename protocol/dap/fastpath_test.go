package dap

import (
	"bytes"
	"encoding/json"
	"testing"

	godap "github.com/google/go-dap"
)

// The hot path's hand-written parts: the reader's one pass over a frame for the words that
// need action before decoding it, and the stopped event's body.

// The reader's one pass over a frame finds the words that need action before decoding.
func TestQuotedWords(t *testing.T) {
	for body, want := range map[string]int{
		`{"seq":9,"type":"request","command":"next","arguments":{"threadId":1}}`:    0,
		`{"seq":1,"type":"request","command":"launch","arguments":{}}`:              wordLong,
		`{"seq":1, "command" :  "attach"}`:                                          wordLong,
		`{"seq":1,"command":"restart"}`:                                             wordLong,
		`{"seq":2,"type":"request","command":"cancel","arguments":{"requestId":1}}`: wordCancel,
		`{"command":"disconnect","arguments":{"restart":true}}`:                     0,
		`{"command":"evaluate","arguments":{"expression":"x","context":"launch"}}`:  wordLong,
		`{"command":"launch`:      0,
		`"`:                       0,
		`{"command":"cancelled"}`: 0,
		`{"command":"launch","arguments":{"program":"a"}} {"command":"cancel"}`: wordLong | wordCancel,
	} {
		if got := quotedWords([]byte(body)); got != want {
			t.Errorf("quotedWords(%s) = %b, want %b", body, got, want)
		}
	}
}

// The stopped event's body, written field by field, is what encoding/json writes for it.
func TestStoppedBodyAsJSON(t *testing.T) {
	for _, body := range []godap.StoppedEventBody{
		{Reason: "step", ThreadId: 1, AllThreadsStopped: true},
		{Reason: "breakpoint", ThreadId: 7, AllThreadsStopped: true, HitBreakpointIds: []int{3}},
		{Reason: "data breakpoint", Description: "Paused on data breakpoint", Text: "x: 1 \"→\" 2\n<b>\xff", HitBreakpointIds: []int{1, 22}},
		{Reason: "exception", Description: "Paused on exception", PreserveFocusHint: true, HitBreakpointIds: []int{}},
		{},
	} {
		want, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		want = bytes.ReplaceAll(bytes.ReplaceAll(bytes.ReplaceAll(want, []byte(`\u003c`), []byte("<")), []byte(`\u003e`), []byte(">")), []byte(`\u0026`), []byte("&"))
		if got := appendStoppedBody(nil, body); !bytes.Equal(got, want) {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
}
