// Package cxxname turns C++'s mangled symbol names into the names gdb prints.
package cxxname

import (
	"strings"

	"github.com/ianlancetaylor/demangle"
)

// Symbol is a symbol's name as gdb prints a C++ one where it demangles names (a pointer's
// target, info symbol): _ZTVN3geo6SquareE+16 is "vtable for geo::Square+16". Other names,
// and names it cannot read, come back as they are.
func Symbol(name string) string {
	if !strings.HasPrefix(name, "_Z") {
		return name
	}
	base, off := name, ""
	if i := strings.LastIndexByte(name, '+'); i > 0 {
		base, off = name[:i], name[i:]
	}
	d, err := demangle.ToString(base, demangle.NoClones)
	if err != nil {
		return name
	}
	return d + off
}
