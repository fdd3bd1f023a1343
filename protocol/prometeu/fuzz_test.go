package prometeu

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"github.com/polydbg/polydbg/internal/wire"
)

// FuzzReadLine feeds arbitrary bytes to the line reader and the request parser: they
// never panic, never return a line over the limit, and every line of the input comes out
// (or is reported too long) in order.
func FuzzReadLine(f *testing.F) {
	for _, s := range []string{
		"", "\n", `{"type":"getState","id":1}` + "\n", "a\r\nb\n", "no newline",
		`{"type":"setBreakpoint","pc":1e400}`, `{"type":"step","id":{"a":[1,"\u0000"]}}` + "\n",
		string(bytes.Repeat([]byte("x"), 100)) + "\nshort\n", "\xff\xfe\n", `[{"type":"ok"}]`,
		`{"type":"disassemble","pc":-0,"count":1.0}`, `{"type":"setInput","buttons":null}`,
	} {
		f.Add([]byte(s), uint8(16))
	}
	f.Fuzz(func(t *testing.T, data []byte, max uint8) {
		limit := int(max) + 1
		r := wire.NewLineReader(bytes.NewReader(data), limit)
		var got [][]byte
		for i := 0; i < len(data)+2; i++ {
			line, err := r.Next()
			line = bytes.Clone(line)
			if len(line) > limit {
				t.Fatalf("line of %d bytes over the limit %d", len(line), limit)
			}
			if line != nil {
				got = append(got, line)
				req, perr := parseRequest(line)
				if perr == nil && req.typ == "" {
					t.Fatalf("request %q parsed without a type", line)
				}
				msg := errorResponse(&req, "", "x")
				if !json.Valid(msg) {
					t.Fatalf("invalid response %q", msg)
				}
				if perr == nil {
					if !json.Valid(response(req, nil)) {
						t.Fatalf("invalid response for %q", line)
					}
					for _, p := range []string{"pc", "count", "buttons", "interval_frames"} {
						if v, err := req.intParam(p, 0, 1000, false, 0); err == nil && (v < 0 || v > 1000) {
							t.Fatalf("%s = %d out of range", p, v)
						}
					}
				}
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil && !errors.Is(err, wire.ErrLineTooLong) {
				t.Fatalf("error %v", err)
			}
		}
		// Lines that fit come out unchanged.
		var want [][]byte
		rest := data
		for len(rest) > 0 {
			i := bytes.IndexByte(rest, '\n')
			var l []byte
			if i < 0 {
				l, rest = rest, nil
			} else {
				l, rest = rest[:i], rest[i+1:]
			}
			l = bytes.TrimSuffix(l, []byte("\r"))
			if len(l) <= limit && !(i < 0 && len(l) == 0) {
				want = append(want, l)
			}
		}
		if len(got) != len(want) {
			t.Fatalf("%d lines, want %d (%q)", len(got), len(want), data)
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("line %d = %q, want %q", i, got[i], want[i])
			}
		}
	})
}
