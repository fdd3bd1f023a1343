package lantern

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/internal/wire"
)

// FuzzReadCommand feeds arbitrary bytes to the command reader and parser the daemon runs on
// every connection: it must never panic, never return a line over the limit or with a line
// end in it, and parse only printable ASCII words.
func FuzzReadCommand(f *testing.F) {
	for _, seed := range []string{
		"LIST\n",
		"UPLOAD 1048576\n\x7fELF",
		"UPLOAD 52428800 my_app/my_app\n",
		"ARGS a3f2c9d1 --port 8080 --verbose\r\n",
		"ENV a3f2c9d1 LD_LIBRARY_PATH=/opt/libs:/usr/lib\nENVDEL a3f2c9d1 LD_LIBRARY_PATH\n",
		"OUTPUT a3f2c9d1 35\n",
		"\n\n   \t\n",
		"AUTH \xff\xfe\n",
		strings.Repeat("A", 200) + "\n",
	} {
		f.Add([]byte(seed))
	}
	const max = 64
	f.Fuzz(func(t *testing.T, data []byte) {
		lr := newLineReader(bytes.NewReader(data), max)
		for i := 0; i < 1000; i++ {
			raw, err := lr.Next()
			line := string(raw)
			if errors.Is(err, io.EOF) || errors.Is(err, wire.ErrLineTooLong) {
				return
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			if len(line) > max || strings.ContainsAny(line, "\n") {
				t.Fatalf("bad line %q", line)
			}
			cmd, err := parseCommand(line)
			if err != nil {
				continue
			}
			for _, w := range append([]string{cmd.name}, cmd.args...) {
				for j := 0; j < len(w); j++ {
					if w[j] < 0x21 || w[j] > 0x7e {
						t.Fatalf("word %q has byte %#x", w, w[j])
					}
				}
			}
			if cmd.name == "" && len(cmd.args) != 0 {
				t.Fatalf("args without a name: %+v", cmd)
			}
			for n := 0; n <= len(cmd.args)+1; n++ {
				if r := cmd.rest(n); len(r) > len(line) {
					t.Fatalf("rest(%d) = %q longer than the line", n, r)
				}
			}
		}
	})
}
