package elfsym

import (
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/polydbg/polydbg/internal/cstring"
)

// PrintLimits are gdb's `set print elements` and `set print repeats`: how many elements of
// an array (characters of a string) a value's text shows before "...", and how long a run
// of one element must be to show as "<repeats N times>". 0 is unlimited. ArrayIndexes is
// `set print array-indexes` ({[0] = 1, [1] = 2}), NullStop `set print null-stop` (a char
// array shown up to its first NUL), Raw `set print raw-values` (no library printers).
type PrintLimits struct {
	Elements, Repeats           int
	ArrayIndexes, NullStop, Raw bool
	// HideAddresses (print address off) leaves pointers' and functions' addresses out,
	// HideSymbols (print symbol off) the symbol a data pointer points into, HideUnions
	// (print union off) the members of a union inside a struct or union ({...}).
	HideAddresses, HideSymbols, HideUnions bool
	// Object (print object on): members through a pointer to a C++ object are its dynamic
	// class's.
	Object bool
}

// DefaultPrintLimits are gdb's defaults.
var DefaultPrintLimits = PrintLimits{Elements: 200, Repeats: 10}

// printLimits is a File's PrintLimits (nil: the defaults).
type printLimits struct{ p atomic.Pointer[PrintLimits] }

// SetPrintLimits sets how values are shortened from now on.
func (f *File) SetPrintLimits(l PrintLimits) { f.limits.p.Store(&l) }

// PrintLimits are the limits in force.
func (f *File) PrintLimits() PrintLimits {
	if l := f.limits.p.Load(); l != nil {
		return *l
	}
	return DefaultPrintLimits
}

// unlimited turns 0 into a count nothing reaches.
func unlimited(n int) int {
	if n <= 0 {
		return int(^uint(0) >> 1)
	}
	return n
}

// arrayText is the text of an array's elements as gdb prints them: a run of equal elements
// longer than the repeats limit as "E <repeats N times>" (it counts as that many elements
// toward the limit), "..." after the last element shown when the limit cuts the array.
// elem formats element i; same says whether elements i and j are equal.
func (f *File) arrayText(cnt int, elem func(i int) string, same func(i, j int) bool) string {
	l := f.PrintLimits()
	max, repeats := unlimited(l.Elements), unlimited(l.Repeats)
	var b strings.Builder
	b.WriteByte('{')
	shown, i := 0, 0
	for ; i < cnt && shown < max; i++ {
		if i > 0 {
			b.WriteString(", ")
		}
		run := 1
		for i+run < cnt && same(i, i+run) {
			run++
		}
		if l.ArrayIndexes {
			fmt.Fprintf(&b, "[%d] = ", i)
		}
		b.WriteString(elem(i))
		if run > repeats {
			fmt.Fprintf(&b, " <repeats %d times>", run)
			i += run - 1
			shown += repeats
		} else {
			shown++
		}
	}
	if i < cnt {
		b.WriteString("...")
	}
	b.WriteByte('}')
	return b.String()
}

// charsText is the text of characters as gdb prints a char array or a string: quoted runs,
// runs of one character longer than the repeats limit as 'c' <repeats N times>, and "..."
// once the elements limit of characters has been shown with more to come (cut, as gdb
// cuts, after the run that reaches it).
func (f *File) charsText(b []byte, more bool) string {
	units := make([]uint32, len(b))
	for i, c := range b {
		units[i] = uint32(c)
	}
	return f.unitsText(units, "", more)
}

// unitsText is charsText of characters of any width, quoted after prefix (L, u, U for
// wide ones).
func (f *File) unitsText(b []uint32, prefix string, more bool) string {
	l := f.PrintLimits()
	return cstring.UnitsText(b, prefix, more, unlimited(l.Elements), unlimited(l.Repeats))
}
