package vm

import (
	"math"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/kite/syntax"
)

// String renders v as print, str and ${...} do: strings as themselves at top level.
func (v Value) String() string {
	if v.k == StringKind {
		return v.Str()
	}
	var b strings.Builder
	writeValue(&b, v, nil)
	return b.String()
}

// Repr renders v as it appears inside a list or map: strings quoted with escapes.
func (v Value) Repr() string {
	if v.k == IntKind { // the usual variable: no builder (a debugger shows them at every stop)
		return strconv.FormatInt(v.Int(), 10)
	}
	var b strings.Builder
	writeValue(&b, v, nil)
	return b.String()
}

// FormatFloat is the shortest text that reads back to f, with ".0" added when it would
// otherwise look like an int.
func FormatFloat(f float64) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "+Inf"
	case math.IsInf(f, -1):
		return "-Inf"
	}
	var s string
	if a := math.Abs(f); a == 0 || (a >= 1e-4 && a < 1e16) {
		s = strconv.FormatFloat(f, 'f', -1, 64)
	} else {
		s = strconv.FormatFloat(f, 'g', -1, 64)
	}
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return s
}

const maxPrintDepth = 500

// writeValue writes v in its repr form; seen holds the containers being printed, so a
// container that contains itself prints [...] or {...} at the repeat. It stops writing the
// items of a container once the text is longer than MaxStringBytes, so that printing a huge
// value costs bounded memory; callers that produce program values check the length.
func writeValue(b *strings.Builder, v Value, seen []Value) {
	switch v.k {
	case NilKind:
		b.WriteString("nil")
	case BoolKind:
		if v.n != 0 {
			b.WriteString("true")
		} else {
			b.WriteString("false")
		}
	case IntKind:
		b.WriteString(strconv.FormatInt(v.Int(), 10))
	case FloatKind:
		b.WriteString(FormatFloat(v.Float()))
	case StringKind:
		syntax.Quote(b, v.Str())
	case ListKind:
		if isSeen(seen, v) || len(seen) > maxPrintDepth {
			b.WriteString("[...]")
			return
		}
		seen = append(seen, v)
		b.WriteByte('[')
		for i, x := range v.List().Items {
			if b.Len() > MaxStringBytes {
				break // the caller reports the text as too long
			}
			if i > 0 {
				b.WriteString(", ")
			}
			writeValue(b, x, seen)
		}
		b.WriteByte(']')
	case MapKind:
		if isSeen(seen, v) || len(seen) > maxPrintDepth {
			b.WriteString("{...}")
			return
		}
		seen = append(seen, v)
		b.WriteByte('{')
		first := true
		v.Map().Range(func(k, x Value) bool {
			if b.Len() > MaxStringBytes {
				return false // the caller reports the text as too long
			}
			if !first {
				b.WriteString(", ")
			}
			first = false
			writeValue(b, k, seen)
			b.WriteString(": ")
			writeValue(b, x, seen)
			return true
		})
		b.WriteByte('}')
	case FuncKind:
		writeFnName(b, v.Closure().Fn.Name)
	case BuiltinKind:
		writeFnName(b, v.Builtin().Name)
	default:
		b.WriteString("<" + v.k.String() + ">")
	}
}

func writeFnName(b *strings.Builder, name string) {
	if name == "" {
		b.WriteString("<fn>")
		return
	}
	b.WriteString("<fn " + name + ">")
}

func isSeen(seen []Value, v Value) bool {
	for _, s := range seen {
		if s.p == v.p {
			return true
		}
	}
	return false
}
