// Package lineedit reads command lines for an interactive program: from a terminal with line
// editing, Tab completion and a history kept in a file (liner), or from a pipe or file
// exactly as written (scripts and tests).
package lineedit

import (
	"errors"
	"io"

	"github.com/polydbg/polydbg/internal/wire"
)

// ErrInterrupted is a Ctrl-C typed at the prompt: the line is dropped.
var ErrInterrupted = errors.New("interrupted")

// ErrLineTooLong reports a line over the reader's limit; the line was consumed, read on.
var ErrLineTooLong = wire.ErrLineTooLong

// Reader reads one command line after showing the prompt; io.EOF ends the input.
type Reader interface {
	ReadLine(prompt string) (string, error)
	// Remember keeps a line in the editing history.
	Remember(line string)
	Close()
}

// Pipe reads lines of at most max bytes from in and writes each prompt to out itself,
// never an escape code. A last line without a newline counts.
func Pipe(in io.Reader, out io.Writer, max int) Reader {
	return &pipe{lines: wire.NewLineReader(in, max), out: out}
}

type pipe struct {
	lines *wire.LineReader
	out   io.Writer
}

func (p *pipe) ReadLine(prompt string) (string, error) {
	io.WriteString(p.out, prompt)
	line, err := p.lines.Next()
	return string(line), err
}

func (p *pipe) Remember(string) {}
func (p *pipe) Close()          {}
