package engine

// Source text for front ends: the listing around a stop, a source view, a resource. One
// reader, one rule (a regular file, capped, never blocking on a FIFO), cached per session.

import (
	"cmp"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/polydbg/polydbg/internal/fileload"
)

// SourceHolder is implemented by targets that hold the text they run (the Kite VM compiled
// it), so a listing shows what runs even when the file changed on disk since.
type SourceHolder interface {
	SourceText(file string) ([]byte, bool)
}

// sourceCache keeps the lines of each file read, for the session's lifetime (until the
// search path changes), and where each was found.
type sourceCache struct {
	mu    sync.Mutex
	files map[string][]string
	found map[string]string
	path  SourcePath
}

// SourcePath is where Source looks for a file that is not where the program says it is
// (gdb's set substitute-path and directory): the rewrites first, then each directory.
type SourcePath struct {
	Rules [][2]string // FROM, TO: a path that begins with the directory FROM is read under TO
	Dirs  []string    // searched in order for the file by its name
}

// SetSourcePath makes p where source files are looked for from now on.
func (s *Session) SetSourcePath(p SourcePath) {
	c := &s.sources
	c.mu.Lock()
	c.path, c.files, c.found = p, nil, nil
	c.mu.Unlock()
}

// SourceFile is where Source reads file from: file itself, or where the search path found
// it; "" when it is nowhere.
func (s *Session) SourceFile(file string) string {
	if _, err := s.Source(file); err != nil {
		return ""
	}
	c := &s.sources
	c.mu.Lock()
	defer c.mu.Unlock()
	if f, ok := c.found[file]; ok {
		return f
	}
	return file
}

// candidates are the places file is looked for: rewritten by each rule that applies,
// itself, then by its name in each directory.
func (p SourcePath) candidates(file string) []string {
	var out []string
	for _, r := range p.Rules {
		if at, ok := RewritePath(file, r[0], r[1]); ok {
			out = append(out, at)
		}
	}
	out = append(out, file)
	for _, d := range p.Dirs {
		out = append(out, filepath.Join(d, filepath.Base(file)))
	}
	return out
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
		var firstErr error
		for _, at := range c.path.candidates(file) {
			b, err := fileload.ReadFile(at)
			if err != nil {
				firstErr = cmp.Or(firstErr, err)
				continue
			}
			text, firstErr = b, nil
			if at != file {
				if c.found == nil {
					c.found = map[string]string{}
				}
				c.found[file] = at
			}
			break
		}
		if firstErr != nil {
			return nil, firstErr
		}
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

// RewritePath is path with its directory from, or a directory under it, given as to
// instead ("/build/src/a.c" from "/build" to "/home/me" is "/home/me/src/a.c"); false when
// path is not under from.
func RewritePath(path, from, to string) (string, bool) {
	rest, ok := strings.CutPrefix(path, from)
	if !ok || from == "" || rest != "" && rest[0] != '/' && !strings.HasSuffix(from, "/") {
		return path, false
	}
	return to + rest, true
}
