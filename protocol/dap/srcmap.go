package dap

import (
	"cmp"
	"slices"

	"github.com/polydbg/polydbg/engine"
)

// sourceMap is a launch's sourceFileMap, as VS Code's C/C++ adapter takes it: the
// directories the program was built in, and where those files are on this machine. Frames
// and breakpoints name the local files; the client's breakpoints are set on the built ones.
type sourceMap [][2]string // built, local; the longest built directory first

func newSourceMap(m map[string]string) sourceMap {
	var out sourceMap
	for built, local := range m {
		if built != "" && local != "" {
			out = append(out, [2]string{built, local})
		}
	}
	slices.SortFunc(out, func(a, b [2]string) int { return cmp.Or(cmp.Compare(len(b[0]), len(a[0])), cmp.Compare(a[0], b[0])) })
	return out
}

// local is where a file the program names is on this machine.
func (m sourceMap) local(file string) string {
	for _, r := range m {
		if at, ok := engine.RewritePath(file, r[0], r[1]); ok {
			return at
		}
	}
	return file
}

// built is the file the program names for a file of this machine.
func (m sourceMap) built(file string) string {
	for _, r := range m {
		if at, ok := engine.RewritePath(file, r[1], r[0]); ok {
			return at
		}
	}
	return file
}

// rules are the engine's source path rewrites for the map, so that the engine reads the
// local files (the source request, -exec list).
func (m sourceMap) rules() engine.SourcePath {
	p := engine.SourcePath{}
	for _, r := range m {
		p.Rules = append(p.Rules, r)
	}
	return p
}
