package engine

// Source text for front ends: the listing around a stop, a source view, a resource. One
// reader, one rule (a regular file, capped, never blocking on a FIFO), cached per session.

import (
	"fmt"
	"strings"
	"sync"

	"github.com/polydbg/polydbg/internal/fileload"
)

// SourceHolder is implemented by targets that hold the text they run (the Kite VM compiled
// it), so a listing shows what runs even when the file changed on disk since.
type SourceHolder interface {
	SourceText(file string) ([]byte, bool)
}

// sourceCache keeps the lines of each file read, for the session's lifetime.
type sourceCache struct {
	mu    sync.Mutex
	files map[string][]string
}

// SourceLine is line (from 1) of file, as Source reads it; false when there is none.
func (s *Session) SourceLine(file string, line int) (string, bool) {
	lines, err := s.Source(file)
	if err != nil || line < 1 || line > len(lines) {
		return "", false
	}
	return lines[line-1], true
}

// ResolvePC is the location of the instruction at pc (InstructionResolver); ErrUnsupported
// for a target without addressable instructions.
func (s *Session) ResolvePC(pc uint64) (Location, error) {
	r, ok := s.t.(InstructionResolver)
	if !ok {
		return Location{}, fmt.Errorf("resolve pc: %w", ErrUnsupported)
	}
	return r.ResolvePC(pc)
}

// Source returns the lines of file (without their newlines): the target's own text when it
// holds it, else the file on disk, read through the one loader every command uses.
func (s *Session) Source(file string) ([]string, error) {
	c := &s.sources
	c.mu.Lock()
	defer c.mu.Unlock()
	if lines, ok := c.files[file]; ok {
		return lines, nil
	}
	var text []byte
	held := false
	if h, ok := s.t.(SourceHolder); ok {
		text, held = h.SourceText(file)
	}
	if !held {
		b, err := fileload.ReadFile(file)
		if err != nil {
			return nil, err
		}
		text = b
	}
	lines := strings.Split(strings.TrimSuffix(strings.ReplaceAll(string(text), "\r\n", "\n"), "\n"), "\n")
	if c.files == nil {
		c.files = map[string][]string{}
	}
	c.files[file] = lines
	return lines, nil
}

// SourceNamer is implemented by targets whose source files have a name besides their path:
// the one the compiler was given (gdb's, in its frame and breakpoint lines).
type SourceNamer interface {
	SourceName(file string) string
}

// SourceName is file as the program's debug information names it ("t.c" for a program
// built with "gcc -g t.c"), or file itself.
func (s *Session) SourceName(file string) string {
	if n, ok := s.t.(SourceNamer); ok {
		return n.SourceName(file)
	}
	return file
}
