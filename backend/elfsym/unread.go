package elfsym

import (
	"debug/dwarf"
	"fmt"
	"strconv"
	"strings"
)

// Places whose memory cannot be read. gdb reads an object lazily: h->next of a null h is
// the place 0x10 of type struct node *, whose address (&h->next), size and type answer,
// and which fails only when its contents are asked for, with the address it could not
// read (Cannot access memory at address 0x10, not 0x0). An Unread value is such a place.

// KindUnread is the Kind of an Unread value.
const KindUnread = "unread"

// Unread is the object of type t at addr, whose memory could not be read: its address and
// type are known, its contents are the error UnreadError.
func Unread(name string, t dwarf.Type, addr uint64) Value {
	return Value{Name: name, Type: TypeName(t), Kind: KindUnread, Addr: addr, InMemory: true, typ: t,
		Text: fmt.Sprintf("<error: Cannot access memory at address %#x>", addr)}
}

// UnreadError is gdb's error for the contents of an Unread value.
func UnreadError(v Value) error { return fmt.Errorf("Cannot access memory at address %#x", v.Addr) }

// Within is a part of v as a place: what pointer v points to (key "*"), element "[i]" of
// an array or pointer, or member "name" of an Unread struct. It is read when its memory
// can be and Unread otherwise; ok is false when v has no such part, or the part's place
// is not known without v's contents (the target of an Unread pointer).
func (f *File) Within(v Value, key string, mem Memory) (Value, bool) {
	t := resolve(v.typ)
	switch {
	case key == "*" || strings.HasPrefix(key, "["):
		i := int64(0)
		if key != "*" {
			n, err := strconv.ParseInt(strings.Trim(key, "[]"), 10, 64)
			if err != nil {
				return v, false
			}
			i = n
		}
		switch tt := t.(type) {
		case *dwarf.PtrType:
			et, size, err := v.pointee()
			if err != nil || v.Kind == KindUnread || len(v.Bytes) == 0 {
				return v, false
			}
			return f.readOrUnread(v.Name, key, et, uintFrom(v.Bytes, f.Arch)+uint64(i*int64(size)), size, mem), true
		case *dwarf.ArrayType:
			size, err := TypeSize(tt.Type)
			if err != nil || v.Kind != KindUnread {
				return v, false
			}
			return f.readOrUnread(v.Name, key, tt.Type, v.Addr+uint64(i*int64(size)), size, mem), true
		}
	case v.Kind == KindUnread:
		if st, ok := t.(*dwarf.StructType); ok {
			if ft, off, ok := fieldNamed(st, key); ok {
				if size, err := TypeSize(ft); err == nil {
					return f.readOrUnread(v.Name, "."+key, ft, v.Addr+uint64(off), size, mem), true
				}
			}
		}
	}
	return v, false
}

// Pointee is what an Unread pointer points to, for a question about its type alone
// (whatis h->next->val): a place at no known address.
func Pointee(v Value) (Value, bool) {
	et, _, err := v.pointee()
	if err != nil || v.Kind != KindUnread {
		return v, false
	}
	return Unread("*"+v.Name, et, 0), true
}

// readOrUnread is the object of type t at addr, read, or Unread.
func (f *File) readOrUnread(base, key string, t dwarf.Type, addr uint64, size int, mem Memory) Value {
	name := base + key
	if key == "*" {
		name = "*" + base
	}
	if v, err := f.readAt(name, t, addr, size, mem); err == nil {
		return v
	}
	return Unread(name, t, addr)
}

// fieldNamed finds member name of st, also inside its anonymous members, with its offset.
func fieldNamed(st *dwarf.StructType, name string) (dwarf.Type, int64, bool) {
	for _, fld := range st.Field {
		if fld.Name == name {
			return fld.Type, fld.ByteOffset, true
		}
	}
	for _, fld := range st.Field {
		if inner, ok := resolve(fld.Type).(*dwarf.StructType); ok && fld.Name == "" {
			if t, off, ok := fieldNamed(inner, name); ok {
				return t, fld.ByteOffset + off, true
			}
		}
	}
	return nil, 0, false
}
