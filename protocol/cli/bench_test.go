package cli_test

import (
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/polydbg/polydbg/gdbcmd"
	"github.com/polydbg/polydbg/kite"
	"github.com/polydbg/polydbg/protocol/cli"
)

// nextFeed is a piped script: head, then "next" n times.
type nextFeed struct {
	n    int
	head string
}

func (f *nextFeed) Read(p []byte) (int, error) {
	if f.head != "" {
		n := copy(p, f.head)
		f.head = f.head[n:]
		return n, nil
	}
	if f.n == 0 {
		return 0, io.EOF
	}
	f.n--
	return copy(p, "next\n"), nil
}

// BenchmarkNextInProcess is the terminal's `next` on a Kite loop, command read to line and
// prompt written, without pipes.
func BenchmarkNextInProcess(b *testing.B) {
	file := filepath.Join(b.TempDir(), "loop.kite")
	if err := os.WriteFile(file, []byte("let x = 0\nwhile true {\n    x = x + 1\n    x = x - 1\n}\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	p, err := kite.CompileFile(file, nil)
	if err != nil {
		b.Fatal(err)
	}
	in := &nextFeed{n: b.N, head: "break 3\nrun\n"}
	b.ResetTimer()
	cli.Run(cli.Config{In: in, Debug: gdbcmd.Config{Out: io.Discard, NewSession: kiteSessions(p)}})
}
