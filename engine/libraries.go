package engine

// Catchpoints on the program's shared libraries (gdb's catch load and catch unload, and
// its stop-on-solib-events setting): the target stops at the dynamic linker's events in a
// continue while asked to (LibraryCatcher), saying what changed; the session numbers the
// stop by the catchpoint it matches, or resumes when none does.

import (
	"fmt"
	"regexp"
	"strings"
)

// ReasonLibrary is the stop at a change of the program's loaded libraries: Stop.Text has
// one line per change, "loaded PATH" or "unloaded PATH" (none when nothing changed),
// Stop.BreakpointID the catchpoint that caught it (0 for a stop on every event).
const ReasonLibrary StopReason = "library"

// LibraryCatcher is implemented by targets that can stop at the dynamic linker's events.
type LibraryCatcher interface {
	// CatchLibraries makes the next continues stop at each library event (ReasonLibrary),
	// or not.
	CatchLibraries(on bool) error
}

// LibraryChange is one line of a ReasonLibrary stop's Text.
type LibraryChange struct {
	Path     string
	Unloaded bool
}

// LibraryChanges reads a ReasonLibrary stop's changes.
func LibraryChanges(stop Stop) []LibraryChange {
	var out []LibraryChange
	for line := range strings.Lines(stop.Text) {
		line = strings.TrimSuffix(line, "\n")
		if p, ok := strings.CutPrefix(line, "unloaded "); ok {
			out = append(out, LibraryChange{Path: p, Unloaded: true})
		} else if p, ok := strings.CutPrefix(line, "loaded "); ok {
			out = append(out, LibraryChange{Path: p})
		}
	}
	return out
}

// LibraryChangeText is the Text of a ReasonLibrary stop with these changes.
func LibraryChangeText(changes []LibraryChange) string {
	var b strings.Builder
	for _, c := range changes {
		if c.Unloaded {
			b.WriteString("un")
		}
		b.WriteString("loaded " + c.Path + "\n")
	}
	return b.String()
}

// CatchLibraries adds a catchpoint on the libraries the program loads (gdb's catch load),
// or unloads (catch unload), those whose path the regular expression match matches when
// it is not "".
func (s *Session) CatchLibraries(unload bool, match string) (Catchpoint, error) {
	if _, ok := s.t.(LibraryCatcher); !ok {
		return Catchpoint{}, fmt.Errorf("catch load: %w", ErrUnsupported)
	}
	if _, err := regexp.Compile(match); err != nil {
		return Catchpoint{}, err
	}
	c := s.addCatchpoint(Catchpoint{OnLibrary: true, Unload: unload, Match: match})
	return c, s.armCatchpoints()
}

// StopOnLibraryEvents makes every library event stop the program in a continue, caught
// or not (gdb's set stop-on-solib-events 1), or not.
func (s *Session) StopOnLibraryEvents(on bool) error {
	if _, ok := s.t.(LibraryCatcher); !ok && on {
		return fmt.Errorf("stop-on-solib-events: %w", ErrUnsupported)
	}
	s.mu.Lock()
	s.libraryStops = on
	s.mu.Unlock()
	return s.armCatchpoints()
}

// catchesLibraries says whether the target is to stop at library events (under s.mu).
func (s *Session) catchesLibraries() bool {
	on := s.libraryStops
	for _, c := range s.catches {
		on = on || !c.Disabled && c.OnLibrary
	}
	return on
}

// libraryCaught numbers a library event's stop by the first catchpoint one of its changes
// matches and counts its hit; false when none does and no setting stops at every event,
// when the program is to go on (under s.mu).
func (s *Session) libraryCaught(stop *Stop) bool {
	changes := LibraryChanges(*stop)
	for i := range s.catches {
		c := &s.catches[i]
		if c.Disabled || !c.OnLibrary {
			continue
		}
		for _, ch := range changes {
			if ch.Unloaded != c.Unload {
				continue
			}
			if ok, _ := regexp.MatchString(c.Match, ch.Path); ok {
				c.Hits++
				stop.BreakpointID = c.ID
				return true
			}
		}
	}
	return s.libraryStops
}

// DebugFileReader is implemented by targets that read separate debug files (a stripped
// library's DWARF installed apart, by build id or debug link).
type DebugFileReader interface {
	// SetDebugDirs sets the folders searched for the debug files of the libraries loaded
	// from now on: nil for the default (/usr/lib/debug), empty for none.
	SetDebugDirs(dirs []string)
}

// SetDebugDirs sets where the target looks for separate debug files (gdb's
// debug-file-directory), when it reads any; others have nothing to set.
func (s *Session) SetDebugDirs(dirs []string) {
	if r, ok := s.t.(DebugFileReader); ok {
		r.SetDebugDirs(dirs)
	}
}
