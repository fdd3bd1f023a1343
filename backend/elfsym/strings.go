package elfsym

// The bytes a value stands for, as gdb's string functions ($_streq, $_strlen, $_memeq)
// take them: a char array's own, or what a pointer points to.

import (
	"bytes"
	"fmt"
)

// StringOf is the C string v holds or points to: a char array's bytes up to its first NUL
// (all of them when it has none), a pointer's target up to its NUL (at most max bytes).
func (f *File) StringOf(v Value, mem Memory, max int) ([]byte, error) {
	switch v.Kind {
	case "array":
		b, err := f.arrayBytes(v, mem)
		if err != nil {
			return nil, err
		}
		if i := bytes.IndexByte(b, 0); i >= 0 {
			b = b[:i]
		}
		return b, nil
	case "pointer":
		s, err := f.readCString(mem, uintFrom(v.Bytes, f.Arch), max)
		return []byte(s), err
	}
	return nil, fmt.Errorf("Trying to read string with inappropriate type `%s'.", v.Type)
}

// BytesOf is the first n bytes v holds (an array) or points to (a pointer).
func (f *File) BytesOf(v Value, n int, mem Memory) ([]byte, error) {
	switch v.Kind {
	case "array":
		b, err := f.arrayBytes(v, mem)
		if err == nil && len(b) < n && v.InMemory {
			b, err = mem.ReadMemory(v.Addr, n)
		}
		if err == nil && len(b) < n {
			err = fmt.Errorf("%s holds %d bytes, not %d", v.Name, len(b), n)
		}
		if err != nil {
			return nil, err
		}
		return b[:n], nil
	case "pointer":
		b, err := mem.ReadMemory(uintFrom(v.Bytes, f.Arch), n)
		if err == nil && len(b) < n {
			err = fmt.Errorf("Cannot access memory at address %#x", uintFrom(v.Bytes, f.Arch)+uint64(len(b)))
		}
		return b, err
	}
	return nil, fmt.Errorf("%s is not an array or a pointer", v.Name)
}

// arrayBytes is the whole of array v: its bytes as read, else from its place in memory.
func (f *File) arrayBytes(v Value, mem Memory) ([]byte, error) {
	if v.Bytes != nil || !v.InMemory {
		return v.Bytes, nil
	}
	size, err := f.SizeOf(v)
	if err != nil {
		return nil, err
	}
	return mem.ReadMemory(v.Addr, size)
}
