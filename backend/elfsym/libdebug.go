package elfsym

// Shared libraries with debug information: a library built with -g (the program's own
// helper library, a plugin) is read as fully as the program. A question about a run-time
// pc in its code, or about one of its functions, variables or frames, goes to its File; a
// question by name looks in the program first, then in each such library in load order,
// as gdb searches its object files.

// debugLibraryAt is the File of the loaded library with DWARF whose code holds the
// run-time pc: nil for the program's own code and for a library without debug information.
func (f *File) debugLibraryAt(pc uint64) *File {
	if !f.libs.debug.Load() {
		return nil // (on every step's path: one load while no library has any)
	}
	if l := f.libraryAt(pc); l != nil {
		if lf := l.debugged(); lf.DWARF != nil {
			return lf
		}
	}
	return nil
}

// debugLibraries are the Files of the loaded libraries with DWARF, in load order.
func (f *File) debugLibraries() []*File {
	if !f.libs.debug.Load() {
		return nil
	}
	f.libs.mu.Lock()
	libs := append([]*library(nil), f.libs.list...)
	f.libs.mu.Unlock()
	var out []*File
	for _, l := range libs {
		if lf := l.debugged(); lf.DWARF != nil {
			out = append(out, lf)
		}
	}
	return out
}

// readLibraries are the Files of the loaded libraries whose DWARF has been read already
// (debugLibraries without reading any).
func (f *File) readLibraries() []*File {
	f.libs.mu.Lock()
	defer f.libs.mu.Unlock()
	var out []*File
	for _, l := range f.libs.list {
		if lf := l.full.Load(); lf != nil && lf.DWARF != nil {
			out = append(out, lf)
		} else if l.base.DWARF != nil {
			out = append(out, l.base)
		}
	}
	return out
}

// LinkAddr is the link-time address of the run-time pc in the file whose code holds it:
// a library's with debug information, else the program's (as its Inlines' ranges are).
func (f *File) LinkAddr(pc uint64) uint64 {
	if lf := f.debugLibraryAt(pc); lf != nil {
		return lf.clearThumb(pc - lf.Bias)
	}
	return f.clearThumb(pc - f.Bias)
}

// fileOf is the File that describes fn: a library's for its functions, else f.
func (f *File) fileOf(fn *Func) *File {
	if fn != nil && fn.owner != nil {
		return fn.owner
	}
	return f
}

// fileOfVar is the File that describes v: a library's for its variables, else f.
func (f *File) fileOfVar(v *Var) *File {
	switch {
	case v == nil:
		return f
	case v.fn != nil:
		return f.fileOf(v.fn)
	case v.cu != nil && v.cu.file != nil:
		return v.cu.file
	}
	return f
}

// fileOfFrame is the File that describes the frame's function.
func (f *File) fileOfFrame(fr *Frame) *File {
	if fr == nil {
		return f
	}
	return f.fileOf(fr.Func)
}

// Owns reports whether fn is described by f itself rather than by a loaded library.
func (f *File) Owns(fn *Func) bool { return f.fileOf(fn) == f }

// inLibraries asks each library with debug information in turn, until one answers ok.
func inLibraries[T any](f *File, ask func(*File) (T, bool)) (T, bool) {
	for _, lf := range f.debugLibraries() {
		if v, ok := ask(lf); ok {
			return v, true
		}
	}
	var zero T
	return zero, false
}

// Start is the run-time address of the function's first instruction (Low with its file's
// load bias: a library's function is where that library was loaded).
func (fn *Func) Start() uint64 { return fn.Low + fn.bias() }

// IsCXX reports whether the function is C++'s (it may be a method, with this).
func (fn *Func) IsCXX() bool { return fn.cplus }

// End is the run-time address after the function's last instruction.
func (fn *Func) End() uint64 { return fn.High + fn.bias() }

func (fn *Func) bias() uint64 {
	if fn.owner == nil {
		return 0
	}
	return fn.owner.Bias
}
