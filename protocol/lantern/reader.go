package lantern

import (
	"fmt"
	"io"
	"strings"

	"github.com/polydbg/polydbg/internal/wire"
)

// newLineReader reads command lines of at most max bytes. The connection cannot be
// resynchronized after a longer line (what follows may be upload payload), so that is
// reported at once (the server answers and closes), and a last line with no "\n" does not
// count: a command only exists once it is terminated.
func newLineReader(r io.Reader, max int) *wire.LineReader {
	lr := wire.NewLineReader(r, max)
	lr.NoResync, lr.DropUnterminated = true, true
	return lr
}

// command is one parsed command line.
type command struct {
	name string   // upper-cased first word
	args []string // the other words
	line string   // the whole line, for commands that take the rest of it as-is
}

// parseCommand splits a line into words separated by spaces (or tabs). Words are printable
// ASCII: the document's WORD characters plus any other visible character (ENV values and
// tokens need "=", "+", "," ...). A line with no word parses to a command with an empty name.
func parseCommand(line string) (command, error) {
	for i := 0; i < len(line); i++ {
		c := line[i]
		if c == ' ' || c == '\t' {
			continue
		}
		if c < 0x21 || c > 0x7e {
			return command{}, fmt.Errorf("byte 0x%02x at column %d is not printable ASCII", c, i+1)
		}
	}
	words := strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' })
	if len(words) == 0 {
		return command{line: line}, nil
	}
	return command{name: strings.ToUpper(words[0]), args: words[1:], line: line}, nil
}

// rest returns the raw text of the line after its first n words and the separator that
// follows them, as-is (ARGS keeps its argument string verbatim).
func (c command) rest(n int) string {
	s := c.line
	for i := 0; i < n; i++ {
		s = strings.TrimLeft(s, " \t")
		j := strings.IndexAny(s, " \t")
		if j < 0 {
			return ""
		}
		s = s[j:]
	}
	return strings.TrimLeft(s, " \t")
}
