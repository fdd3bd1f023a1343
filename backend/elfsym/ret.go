package elfsym

import "debug/dwarf"

// ReturnType is the type fn returns: nil for a void function, or when fn has no DWARF.
func (f *File) ReturnType(fn *Func) dwarf.Type {
	if o := f.fileOf(fn); o != f {
		return o.ReturnType(fn)
	}
	if fn == nil || fn.entry == 0 || f.DWARF == nil {
		return nil
	}
	r := f.DWARF.Reader()
	r.Seek(fn.entry)
	e, err := r.Next()
	if err != nil || e == nil {
		return nil
	}
	return f.entryType(e)
}
