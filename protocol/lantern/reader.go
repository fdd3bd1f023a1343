package lantern

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// errLineTooLong is returned by readLine for a command line longer than the limit. The
// connection cannot be resynchronized after it (what follows may be upload payload), so the
// server answers and closes.
var errLineTooLong = errors.New("command line too long")

// readLine reads one command line of at most max bytes (not counting the line end) and
// returns it without its "\n" (and without a "\r" before it, so CRLF clients work too).
// At end of input it returns io.EOF, also for a last line with no "\n": a command only
// counts once it is terminated.
func readLine(r *bufio.Reader, max int) (string, error) {
	var long []byte
	for {
		frag, err := r.ReadSlice('\n')
		if len(long)+len(frag) > max+2 { // +2: "\r\n" is not part of the limit
			return "", errLineTooLong
		}
		switch {
		case err == nil:
			var line []byte
			if long == nil {
				line = frag
			} else {
				line = append(long, frag...)
			}
			line = line[:len(line)-1]
			if n := len(line); n > 0 && line[n-1] == '\r' {
				line = line[:n-1]
			}
			if len(line) > max {
				return "", errLineTooLong
			}
			return string(line), nil
		case errors.Is(err, bufio.ErrBufferFull):
			long = append(long, frag...)
		case errors.Is(err, io.EOF):
			return "", io.EOF
		default:
			return "", err
		}
	}
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
