package engine

import "fmt"

// maxLocationLines bounds the lines one BreakpointLocations looks at.
const maxLocationLines = 10000

// BreakpointLocations are the lines from line to endLine (line alone when endLine is
// before it) of file where a line breakpoint binds to that very line: the lines with code
// (DAP's breakpointLocations, an editor's breakpoint candidates).
func (s *Session) BreakpointLocations(file string, line, endLine int) ([]int, error) {
	if line <= 0 {
		return nil, fmt.Errorf("invalid line %d", line)
	}
	if endLine < line {
		endLine = line
	}
	if endLine-line >= maxLocationLines {
		return nil, fmt.Errorf("at most %d lines at once", maxLocationLines)
	}
	var lines []int
	for l := line; l <= endLine; {
		loc, err := s.t.ResolveLine(file, l)
		if err != nil || loc.Line < l {
			break // no code at or after l
		}
		if loc.Line <= endLine {
			lines = append(lines, loc.Line)
		}
		l = loc.Line + 1 // the lines between have no code of their own
	}
	return lines, nil
}
