package mcp

import (
	"encoding/json"
	"fmt"
	"github.com/polydbg/polydbg/engine"
	"strings"
	"testing"
)

// The redactor rewrites every answer: whatever JSON comes in, valid JSON goes out, and a
// key-shaped string never survives it.
func FuzzRedactJSON(f *testing.F) {
	for _, s := range []string{`{"value":"api_key=abcd1234efgh"}`, `["AKIAABCDEFGHIJKLMNOP", 1, null]`, `"password: hunter22"`,
		`{"n": 12345678901234567890}`, `{"v":"pa\"ss\u003cword\u003e"}`, `not json sk-abcdefghijklmnopqrstuvwx`, `{"a":{"b":["token=\"x\\\"y1234\""]}}`} {
		f.Add(s)
	}
	r := &redactor{on: true, secrets: []secret{{"MY_TOKEN", "s3cr3t-value"}}}
	quoted := &redactor{on: true, secrets: []secret{{"MY_PASSWORD", `pa"ss<word>`}}, escaped: true}
	f.Fuzz(func(t *testing.T, in string) {
		out := r.jsonOrText(in)
		if json.Valid([]byte(in)) && !json.Valid([]byte(out)) {
			t.Fatalf("valid JSON %q became invalid %q", in, out)
		}
		if strings.Contains(out, "s3cr3t-value") {
			t.Fatalf("the secret survived: %q", out)
		}
		var v any
		if out := quoted.jsonOrText(in); json.Unmarshal([]byte(out), &v) == nil && strings.Contains(fmt.Sprint(v), `pa"ss<word>`) {
			t.Fatalf("a secret with escaped characters survived: %q", out)
		}
	})
}

// Session ids come as strings or numbers; anything else is an error, never a panic.
func FuzzSessionID(f *testing.F) {
	for _, s := range []string{`"3"`, `3`, `3.5`, `null`, `{}`, `"`, `-1e400`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		var id SessionID
		_ = id.UnmarshalJSON([]byte(in))
		_, _ = engine.ParseAddress(in)
	})
}
