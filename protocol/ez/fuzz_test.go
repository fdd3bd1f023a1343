package ez

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/internal/wire"
)

// FuzzReader feeds arbitrary bytes to the command reader and parser: they never panic, never
// return a line over the limit or with a newline in it, and skip over-long lines.
func FuzzReader(f *testing.F) {
	for _, seed := range []string{
		`{"type":"command","command":"stepInto","params":{}}` + "\n",
		`{"type":"command","command":"initialize","params":{"file":"/a/b.kite","workingDir":"/a"}}` + "\r\n",
		`{"type":"command","command":"setBreakpoint","params":{"file":"x.kite","line":25,"condition":"n == 3"}}` + "\n",
		`{"type":"command","command":"evaluate","params":{"expression":"x + y","frameIndex":0}}`,
		`{"type":"command","command":"stepInto"` + "\n{}\n",
		strings.Repeat("x", 300) + "\n" + `{"command":"start"}` + "\n",
		"\n\n\r\n \t\n",
		"\xff\xfe\x00{\"command\":\"\xff\"}\n",
		`{"type":"command","command":"getVariables","params":null}` + "\n",
		`[{"command":"start"}]` + "\n",
	} {
		f.Add([]byte(seed))
	}
	const max = 256
	f.Fuzz(func(t *testing.T, data []byte) {
		lr := wire.NewLineReader(bytes.NewReader(data), max)
		for i := 0; i <= len(data); i++ {
			line, err := lr.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if errors.Is(err, wire.ErrLineTooLong) {
				continue
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if len(line) > max || bytes.ContainsRune(line, '\n') {
				t.Fatalf("bad line %q", line)
			}
			req, err := parseRequest(line)
			if err != nil {
				continue
			}
			if req.Command == "" {
				t.Fatalf("parsed %q without a command", line)
			}
			for _, p := range []any{&initializeParams{}, &startParams{}, &breakpointParams{}, &frameParams{}, &evaluateParams{}} {
				_ = decodeParams(req.Params, p)
			}
		}
		t.Fatal("reader did not reach the end of input")
	})
}

// FuzzServe runs the whole server on arbitrary input (seeds load the test programs): it
// never panics, writes only well-formed event lines, and returns at the end of input.
func FuzzServe(f *testing.F) {
	dir, err := filepath.Abs("testdata")
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		"{\"command\":\"initialize\",\"params\":{\"file\":\"fact.kite\"}}\n{\"command\":\"start\"}\n{\"command\":\"stepInto\"}\n{\"command\":\"getVariables\"}\n",
		"{\"command\":\"initialize\",\"params\":{\"file\":\"fact.kite\"}}\n{\"command\":\"setBreakpoint\",\"params\":{\"line\":4}}\n{\"command\":\"start\"}\n{\"command\":\"evaluate\",\"params\":{\"expression\":\"n\",\"frameIndex\":2}}\n{\"command\":\"stepOut\"}\n",
		"{\"command\":\"initialize\",\"params\":{\"file\":\"divzero.kite\"}}\n{\"command\":\"start\",\"params\":{\"stopOnEntry\":false}}\n{\"command\":\"getStackTrace\"}\n{\"command\":\"continue\"}\n",
		"{\"command\":\"initialize\",\"params\":{\"file\":\"broken.kite\"}}\n{\"command\":\"terminate\"}\n",
		"{\"command\":\"clearBreakpoint\",\"params\":{\"id\":1}}\n\xff\n" + strings.Repeat("{", 300) + "\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		if err := Serve(context.Background(), bytes.NewReader(data), &out, Options{WorkingDir: dir, MaxLine: 256}); err != nil {
			t.Fatalf("serve: %v", err)
		}
		for _, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
			if line == "" {
				continue
			}
			var e struct {
				Type  string          `json:"type"`
				Event string          `json:"event"`
				Data  json.RawMessage `json:"data"`
			}
			if err := json.Unmarshal([]byte(line), &e); err != nil || e.Type != "event" || e.Event == "" || len(e.Data) == 0 || e.Data[0] != '{' {
				t.Fatalf("bad event line %q", line)
			}
		}
	})
}

// TestFuzzCorpusFiles keeps the corpus directory in place (go test runs it as seeds).
func TestFuzzCorpusFiles(t *testing.T) {
	for _, name := range []string{"FuzzReader", "FuzzServe"} {
		if _, err := os.Stat(filepath.Join("testdata", "fuzz", name)); err != nil {
			t.Errorf("corpus %s: %v", name, err)
		}
	}
}
