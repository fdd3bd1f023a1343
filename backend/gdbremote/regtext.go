package gdbremote

import (
	"fmt"
	"strconv"
	"strings"
)

// A register's value as gdb prints it, by the type the target description gives it: a code
// pointer with its symbol, a data pointer in hex, x86's eflags by their flags, an integer
// register signed at its width.

// eflagsBits are the flags of x86's eflags by bit, as gdb names them.
var eflagsBits = []struct {
	bit  uint
	name string
}{{0, "CF"}, {2, "PF"}, {4, "AF"}, {6, "ZF"}, {7, "SF"}, {8, "TF"}, {9, "IF"}, {10, "DF"}, {11, "OF"},
	{14, "NT"}, {16, "RF"}, {17, "VM"}, {18, "AC"}, {19, "VIF"}, {20, "VIP"}, {21, "ID"}}

// eflagsText is "[ PF IF ]": the flags set.
func eflagsText(v uint64) string {
	set := []string{"["}
	for _, f := range eflagsBits {
		if v&(1<<f.bit) != 0 {
			set = append(set, f.name)
		}
	}
	return strings.Join(append(set, "]"), " ")
}

// registerText is the value v of a register of the description's type typ and size bytes
// as gdb prints it, with the type gdb gives it ("void (*)()", "void *", "i386_eflags",
// "long"); "" for a type it prints otherwise (floating point, vectors).
func (t *Target) registerText(typ string, size int, v uint64) (text, ctype string) {
	switch typ {
	case "code_ptr":
		text = fmt.Sprintf("%#x", v)
		if sym, ok := t.sym.SymbolAt(v); ok {
			text += " <" + sym + ">"
		}
		return text, "void (*)()"
	case "data_ptr":
		return fmt.Sprintf("%#x", v), "void *"
	case "i386_eflags":
		return eflagsText(v), "i386_eflags"
	case "int", "int8", "int16", "int32", "int64", "uint32", "uint64", "":
		if size > 0 && size < 8 {
			shift := 64 - 8*uint(size)
			return strconv.FormatInt(int64(v<<shift)>>shift, 10), "int"
		}
		return strconv.FormatInt(int64(v), 10), "long"
	}
	return "", ""
}
