package elfsym

// Where a source line's code is, as gdb's info line says it: the rows of the line table as
// gdb keeps them (a row that continues its line in a loop is merged, LineRow.Merged).

import (
	"fmt"
	"sort"
)

// LineCode is the code of one source line: the range [Start, End) of its first row, or,
// for a line without code, the address of the next line that has some (NoCode).
type LineCode struct {
	File       string
	Line       int
	Start, End uint64 // run-time addresses
	NoCode     bool
}

// kept reports whether row i is one of gdb's line table rows.
func (f *File) kept(i int) bool {
	r := f.rows[i]
	return !r.End && !r.Merged
}

// rowEnd is where the kept row i ends: the next kept row's address, or its sequence's end.
func (f *File) rowEnd(i int) uint64 {
	for j := i + 1; j < len(f.rows); j++ {
		if f.rows[j].Addr > f.rows[i].Addr && (f.rows[j].End || f.kept(j)) {
			return f.rows[j].Addr
		}
	}
	return f.rows[i].Addr
}

// LineCodeOf is the code of file:line (file as a user names it: a path or its end).
func (f *File) LineCodeOf(file string, line int) (LineCode, error) {
	lc, err := f.ownLineCodeOf(file, line)
	if err != nil && !f.hasSourceFile(file) {
		if lc, ok := inLibraries(f, func(lf *File) (LineCode, bool) {
			lc, err := lf.ownLineCodeOf(file, line)
			return lc, err == nil
		}); ok {
			return lc, nil
		}
	}
	return lc, err
}

// hasSourceFile reports whether the file's own line tables name the source file.
func (f *File) hasSourceFile(file string) bool {
	for _, name := range f.files {
		if matchFile(name, file) {
			return true
		}
	}
	return false
}

// ownLineCodeOf is LineCodeOf in the file's own line tables.
func (f *File) ownLineCodeOf(file string, line int) (LineCode, error) {
	best, last, name := -1, 0, ""
	named := f.rowFilesNamed(file)
	for i, r := range f.rows {
		if !f.kept(i) || !named[r.file] {
			continue
		}
		last = max(last, r.Line)
		if r.Line >= line && r.IsStmt && (best < 0 || r.Line < f.rows[best].Line ||
			r.Line == f.rows[best].Line && r.Addr < f.rows[best].Addr) {
			best, name = i, f.rowFiles[r.file]
		}
	}
	if best < 0 {
		if last == 0 {
			return LineCode{}, fmt.Errorf("No line %d in file %q.", line, file)
		}
		return LineCode{}, fmt.Errorf("Line number %d is out of range for %q.", line, file)
	}
	r := f.rows[best]
	lc := LineCode{File: name, Line: line, Start: r.Addr + f.Bias, End: f.rowEnd(best) + f.Bias}
	lc.NoCode = r.Line != line
	return lc, nil
}

// LineCodeAt is the code of the line whose row holds the run-time pc.
func (f *File) LineCodeAt(pc uint64) (LineCode, error) {
	if lf := f.debugLibraryAt(pc); lf != nil {
		return lf.LineCodeAt(pc)
	}
	a := f.clearThumb(pc - f.Bias)
	i := sort.Search(len(f.rows), func(i int) bool { return f.rows[i].Addr > a }) - 1
	for ; i >= 0 && !f.kept(i); i-- {
		if f.rows[i].End {
			i = -1
		}
	}
	if i < 0 || f.rowEnd(i) <= a {
		return LineCode{}, fmt.Errorf("No line number information available for address %#x", pc)
	}
	r := f.rows[i]
	return LineCode{File: f.rowFiles[r.file], Line: r.Line, Start: r.Addr + f.Bias, End: f.rowEnd(i) + f.Bias}, nil
}
