package dap

import "testing"

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
