package elfsym

// Line tables both ways: a pc's source position, the addresses of a file's line, the rows
// around a pc (a statement's range, its start) that steps and breakpoints go by.

import (
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// Location is a source position.
type Location struct {
	PC       uint64 // run time
	File     string
	Line     int
	Column   int
	Function string
}

func (l Location) String() string {
	s := fmt.Sprintf("%#x", l.PC)
	if l.Function != "" {
		s += " in " + l.Function
	}
	if l.File != "" {
		s += fmt.Sprintf(" at %s:%d", filepath.Base(l.File), l.Line)
	}
	return s
}

// PCToLine maps a run-time pc to its source position. ok is false when no line table row
// covers it (Function may still be set).
func (f *File) PCToLine(pc uint64) (loc Location, ok bool) {
	if lf := f.debugLibraryAt(pc); lf != nil {
		return lf.PCToLine(pc)
	}
	loc.PC = pc
	if fn := f.FuncAt(pc); fn != nil {
		loc.Function = fn.Name
	}
	a := f.clearThumb(pc - f.Bias)
	i := sort.Search(len(f.rows), func(i int) bool { return f.rows[i].Addr > a }) - 1
	// An end-of-sequence row at the same address as the start of another sequence.
	for i > 0 && f.rows[i].End && f.rows[i].Addr == a && f.rows[i-1].Addr == a {
		i--
	}
	if i < 0 || f.rows[i].End {
		return loc, false
	}
	// Of several rows at the same address, the last one counts, but a statement before a
	// non-statement row wins, as in gdb (addr2line takes the last row).
	for j := i; j > 0 && !f.rows[i].IsStmt && f.rows[j-1].Addr == f.rows[i].Addr && !f.rows[j-1].End; j-- {
		if f.rows[j-1].IsStmt {
			i = j - 1
			break
		}
	}
	r := f.rows[i]
	loc.File, loc.Line, loc.Column = f.rowFiles[r.file], r.Line, r.Column
	return loc, true
}

// rowFilesNamed tells, for each of the rows' files by index, whether it is the file a user
// named (matchFile).
func (f *File) rowFilesNamed(file string) []bool {
	named := make([]bool, len(f.rowFiles))
	for i, name := range f.rowFiles {
		named[i] = matchFile(name, file)
	}
	return named
}

// ErrNoCode means a function or a line (and every line after it in its function) has no
// code in the file.
var ErrNoCode = errors.New("elfsym: no code for")

// matchFile reports whether the line table file name matches the name a user gave (a full
// path, or a path suffix such as "loop.c" or "src/loop.c").
func matchFile(tableName, want string) bool {
	if tableName == want {
		return true
	}
	if filepath.IsAbs(want) {
		return filepath.Clean(tableName) == filepath.Clean(want)
	}
	return strings.HasSuffix(tableName, "/"+strings.TrimPrefix(want, "./"))
}

// LineToPCs maps file:line to the run-time addresses where a breakpoint for it goes: for
// each function with is_stmt rows for the line, the lowest such address. A line without
// code moves to the next line with code; line reports the line really used.
func (f *File) LineToPCs(file string, line int) (pcs []uint64, got int, err error) {
	pcs, got, err = f.ownLineToPCs(file, line)
	if err != nil && errors.Is(err, ErrNoSourceFile) {
		type found struct {
			pcs []uint64
			got int
		}
		if r, ok := inLibraries(f, func(lf *File) (found, bool) {
			p, g, e := lf.ownLineToPCs(file, line)
			return found{p, g}, e == nil
		}); ok {
			return r.pcs, r.got, nil
		}
	}
	return pcs, got, err
}

// ErrNoSourceFile says that no line table names the source file.
var ErrNoSourceFile = errors.New("no source file")

// ownLineToPCs is LineToPCs in the file's own line tables.
func (f *File) ownLineToPCs(file string, line int) (pcs []uint64, got int, err error) {
	best := -1
	found := false
	named := f.rowFilesNamed(file)
	for _, r := range f.rows {
		if r.End || !r.IsStmt || r.Line < line || !named[r.file] {
			continue
		}
		found = true
		if best < 0 || r.Line < best {
			best = r.Line
		}
	}
	if !found {
		for _, name := range f.files {
			if matchFile(name, file) {
				return nil, 0, fmt.Errorf("%w %s:%d", ErrNoCode, file, line)
			}
		}
		return nil, 0, fmt.Errorf("elfsym: %w %q in the line tables", ErrNoSourceFile, file)
	}
	if best != line && f.inDiscarded(file, line) {
		// The line is in code the linker discarded: moving on to the next line with
		// code would land in an unrelated function.
		return nil, 0, fmt.Errorf("%w %s:%d: the linker discarded it", ErrNoCode, file, line)
	}
	// One address per block, the lowest: per inlined copy (the innermost holding the
	// address) and per function outside copies, as gdb's linespec keeps one per block.
	type block struct {
		fn *Func
		in *Inline
	}
	perBlock := map[block]uint64{}
	var loose []uint64
	for _, r := range f.rows {
		if r.End || !r.IsStmt || r.Line != best || !named[r.file] {
			continue
		}
		fn := f.FuncAt(r.Addr + f.Bias)
		if fn == nil {
			loose = append(loose, r.Addr)
			continue
		}
		b := block{fn: fn}
		if chain := f.InlinesAt(r.Addr + f.Bias); len(chain) > 0 {
			b.in = chain[len(chain)-1]
		}
		if a, ok := perBlock[b]; !ok || r.Addr < a {
			perBlock[b] = r.Addr
		}
	}
	for b, a := range perBlock {
		// A breakpoint on a function's opening line goes after its prologue, like gdb's.
		if a == b.fn.Low && b.in == nil {
			a = f.afterPrologue(b.fn)
		}
		pcs = append(pcs, a+f.Bias)
	}
	for _, a := range loose {
		pcs = append(pcs, a+f.Bias)
	}
	sort.Slice(pcs, func(i, j int) bool { return pcs[i] < pcs[j] })
	return pcs, best, nil
}

// LineRange returns the run-time range [start, end) of consecutive line table rows around
// pc that belong to the same source line as pc (for stepping by statement).
func (f *File) LineRange(pc uint64) (start, end uint64, ok bool) {
	if lf := f.debugLibraryAt(pc); lf != nil {
		return lf.LineRange(pc)
	}
	a := f.clearThumb(pc - f.Bias)
	i := sort.Search(len(f.rows), func(i int) bool { return f.rows[i].Addr > a }) - 1
	if i < 0 || f.rows[i].End {
		return 0, 0, false
	}
	line, file := f.rows[i].Line, f.rows[i].file
	s := i
	for s > 0 && !f.rows[s-1].End && f.rows[s-1].Line == line && f.rows[s-1].file == file {
		s--
	}
	e := i + 1
	for e < len(f.rows) && !f.rows[e].End && f.rows[e].Line == line && f.rows[e].file == file {
		e++
	}
	if e >= len(f.rows) {
		return 0, 0, false
	}
	return f.rows[s].Addr + f.Bias, f.rows[e].Addr + f.Bias, true
}

// LineStart reports whether the run-time pc begins a row of the line table as gdb keeps
// it, so that a stop there is shown without its address: an is_stmt row that gdb does not
// merge into the one before (see LineRow.Merged).
func (f *File) LineStart(pc uint64) bool {
	if lf := f.debugLibraryAt(pc); lf != nil {
		return lf.LineStart(pc)
	}
	a := f.clearThumb(pc - f.Bias)
	first := sort.Search(len(f.rows), func(i int) bool { return f.rows[i].Addr >= a })
	for i := first; i < len(f.rows) && f.rows[i].Addr == a; i++ {
		if r := f.rows[i]; r.IsStmt && !r.End && !r.Merged {
			return true
		}
	}
	return false
}

// IsStmt reports whether the run-time pc starts an is_stmt line table row.
func (f *File) IsStmt(pc uint64) bool {
	if lf := f.debugLibraryAt(pc); lf != nil {
		return lf.IsStmt(pc)
	}
	a := f.clearThumb(pc - f.Bias)
	i := sort.Search(len(f.rows), func(i int) bool { return f.rows[i].Addr >= a })
	for ; i < len(f.rows) && f.rows[i].Addr == a; i++ {
		if f.rows[i].IsStmt && !f.rows[i].End {
			return true
		}
	}
	return false
}
