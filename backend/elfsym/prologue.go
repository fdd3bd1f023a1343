package elfsym

// Where a breakpoint on a function goes: after its prologue, found as gdb finds it, so
// `break FUNC` stops where gdb's would (the gdb oracle test compares every function of the
// corpus at every -O level).

import (
	"bytes"
	"debug/elf"
	"sort"
)

// afterPrologue returns the link-time address of fn's first statement after its prologue.
func (f *File) afterPrologue(fn *Func) uint64 {
	if fn.noPrologue {
		return fn.Low
	}
	if f.Arch.Machine == elf.EM_X86_64 {
		return f.x86Prologue(fn)
	}
	return f.salPrologue(fn)
}

// rowAt is the index of the first row that is not an end of sequence at link-time address
// a, or -1.
func (f *File) rowAt(a uint64) int {
	i := sort.Search(len(f.rows), func(i int) bool { return f.rows[i].Addr >= a })
	for ; i < len(f.rows) && f.rows[i].Addr == a; i++ {
		if !f.rows[i].End {
			return i
		}
	}
	return -1
}

// lineAt is the row covering link-time address a (the last row at or before it, -1 when
// an end of sequence covers it) and the address where the next row starts (the end of a's
// "line" as gdb's find_pc_line gives it).
func (f *File) lineAt(a uint64) (int, uint64) {
	i := sort.Search(len(f.rows), func(i int) bool { return f.rows[i].Addr > a })
	end := ^uint64(0)
	if i < len(f.rows) {
		end = f.rows[i].Addr
	}
	i--
	for i > 0 && f.rows[i].End && f.rows[i-1].Addr == f.rows[i].Addr {
		i--
	}
	if i < 0 || f.rows[i].End {
		return -1, end
	}
	return i, end
}

// salPrologue is gdb's skip_prologue_using_sal, which gdb uses for code GCC compiled on
// ARM (and most targets): GCC emits a row before the prologue and one after it, so the
// prologue ends where the function's first line does; two rows at the entry address mean
// there is no prologue to skip.
func (f *File) salPrologue(fn *Func) uint64 {
	i := f.rowAt(fn.Low)
	if i < 0 {
		return fn.Low
	}
	if i+1 < len(f.rows) && !f.rows[i+1].End && f.rows[i+1].Addr == fn.Low {
		return fn.Low
	}
	line, end := f.rows[i].Line, f.rows[i].Addr
	_, end = f.lineAt(end)
	start := fn.Low
	for end < fn.High {
		j, next := f.lineAt(end)
		if j < 0 || f.rows[j].Line == 0 {
			break
		}
		if f.rows[j].Line >= line && next <= fn.High {
			break
		}
		// A row of a smaller line: the scheduler moved body code into the prologue.
		line, start, end = f.rows[j].Line, end, next
	}
	if end < fn.High {
		return end
	}
	return start
}

// x86Prologue is gdb's amd64 rule for GCC code: past `push %rbp; mov %rsp,%rbp` when the
// function sets up a frame pointer (then on to the start of the next row, when that leaves
// it inside a line), else the function's first address.
func (f *File) x86Prologue(fn *Func) uint64 {
	code := f.codeBytes(fn.Low, 8)
	pc := fn.Low
	if bytes.HasPrefix(code, []byte{0xf3, 0x0f, 0x1e, 0xfa}) { // endbr64
		code, pc = code[4:], pc+4
	}
	if len(code) < 4 || code[0] != 0x55 {
		return fn.Low
	}
	mov := code[1:4]
	if !bytes.Equal(mov, []byte{0x48, 0x89, 0xe5}) && !bytes.Equal(mov, []byte{0x48, 0x8b, 0xec}) {
		return fn.Low
	}
	pc += 4
	j, next := f.lineAt(pc)
	if j >= 0 && f.rows[j].Addr != pc && next < fn.High {
		return next
	}
	return pc
}

// SymbolBreakpoint is where a breakpoint on the function of a loaded library that starts
// at the run-time address pc, known by its symbol alone, goes: after its frame's setup
// (push %rbp; mov %rsp,%rbp) on x86-64, as gdb's prologue analysis puts it; at pc
// elsewhere.
func (f *File) SymbolBreakpoint(pc uint64) uint64 {
	l := f.libraryAt(pc)
	if l == nil || f.Arch.Machine != elf.EM_X86_64 {
		return pc
	}
	lf := l.file()
	low := pc - lf.Bias
	return lf.x86Prologue(&Func{Low: low, High: low + 16}) + lf.Bias
}

// FileCode reads n bytes of code at the run-time address pc from the file that holds it
// (the program's or a loaded library's), as the file has them: false where no file's code
// section holds them all.
func (f *File) FileCode(pc uint64, n int) ([]byte, bool) {
	g := f
	if l := f.libraryAt(pc); l != nil {
		g = l.file()
	}
	b := g.codeBytes(g.clearThumb(pc-g.Bias), n)
	return b, len(b) == n
}

// codeBytes reads n bytes of the file's code at link-time address a (fewer at the end of
// a section, none when no section holds a).
func (f *File) codeBytes(a uint64, n int) []byte {
	for _, s := range f.ELF.Sections {
		if s.Type != elf.SHT_PROGBITS || a < s.Addr || a >= s.Addr+s.Size {
			continue
		}
		n = int(min(uint64(n), s.Addr+s.Size-a))
		b := make([]byte, n)
		k, _ := s.ReadAt(b, int64(a-s.Addr))
		return b[:k]
	}
	return nil
}
