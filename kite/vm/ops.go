package vm

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/polydbg/polydbg/kite/compile"
)

// Size limits that keep a runaway program from exhausting the host's memory.
const (
	MaxStringBytes = 64 << 20
	MaxListItems   = 32 << 20
)

var opSymbols = map[compile.Opcode]string{
	compile.ADD: "+", compile.SUB: "-", compile.MUL: "*", compile.DIV: "/", compile.MOD: "%",
	compile.LT: "<", compile.LE: "<=", compile.GT: ">", compile.GE: ">=",
}

func isNum(v Value) bool { return v.k == IntKind || v.k == FloatKind }

func toFloat(v Value) float64 {
	if v.k == IntKind {
		return float64(v.Int())
	}
	return v.Float()
}

// arith implements + - * / % for every operand combination.
func (vm *VM) arith(op compile.Opcode, x, y Value) (Value, error) {
	if x.k == IntKind && y.k == IntKind {
		a, b := x.Int(), y.Int()
		switch op {
		case compile.ADD:
			return Int(a + b), nil
		case compile.SUB:
			return Int(a - b), nil
		case compile.MUL:
			return Int(a * b), nil
		case compile.DIV:
			if b == 0 {
				return Nil, vm.errorf("division by zero")
			}
			return Int(a / b), nil
		case compile.MOD:
			if b == 0 {
				return Nil, vm.errorf("modulo by zero")
			}
			return Int(a % b), nil
		}
	}
	if isNum(x) && isNum(y) {
		a, b := toFloat(x), toFloat(y)
		switch op {
		case compile.ADD:
			return Float(a + b), nil
		case compile.SUB:
			return Float(a - b), nil
		case compile.MUL:
			return Float(a * b), nil
		case compile.DIV:
			if b == 0 {
				return Nil, vm.errorf("division by zero")
			}
			return Float(a / b), nil
		case compile.MOD:
			if b == 0 {
				return Nil, vm.errorf("modulo by zero")
			}
			return Float(math.Mod(a, b)), nil
		}
	}
	if op == compile.ADD {
		switch {
		case x.k == StringKind && y.k == StringKind:
			if int(x.n)+int(y.n) > MaxStringBytes {
				return Nil, vm.errorf("string too long (limit %d bytes)", MaxStringBytes)
			}
			return Str(x.Str() + y.Str()), nil
		case x.k == ListKind && y.k == ListKind:
			a, b := x.List().Items, y.List().Items
			if len(a)+len(b) > MaxListItems {
				return Nil, vm.errorf("list too long (limit %d items)", MaxListItems)
			}
			items := make([]Value, 0, len(a)+len(b))
			return ListOf(append(append(items, a...), b...)), nil
		}
	}
	return Nil, vm.errorf("bad operand types for %s: %s and %s", opSymbols[op], x.TypeName(), y.TypeName())
}

// compare implements < <= > >= for numbers and strings; other types are an error.
func compare(op compile.Opcode, x, y Value) (Value, error) {
	var c int
	switch {
	case isNum(x) && isNum(y):
		if x.k == IntKind && y.k == IntKind {
			c = cmpInt(x.Int(), y.Int())
		} else {
			a, b := toFloat(x), toFloat(y)
			if math.IsNaN(a) || math.IsNaN(b) {
				return False, nil
			}
			c = cmpFloat(a, b)
		}
	case x.k == StringKind && y.k == StringKind:
		c = strings.Compare(x.Str(), y.Str())
	default:
		return Nil, Errorf("cannot compare %s and %s with %s", x.TypeName(), y.TypeName(), opSymbols[op])
	}
	switch op {
	case compile.LT:
		return Bool(c < 0), nil
	case compile.LE:
		return Bool(c <= 0), nil
	case compile.GT:
		return Bool(c > 0), nil
	}
	return Bool(c >= 0), nil
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// indexInt checks that i is an int index into a sequence of length n.
func indexInt(i Value, n int, what string) (int, error) {
	if i.k != IntKind {
		return 0, Errorf("%s index must be an int, not %s", what, i.TypeName())
	}
	if i.Int() < 0 || i.Int() >= int64(n) {
		return 0, Errorf("index %d out of range (%s of length %d)", i.Int(), what, n)
	}
	return int(i.Int()), nil
}

func (vm *VM) index(x, i Value) (Value, error) {
	switch x.k {
	case ListKind:
		items := x.List().Items
		j, err := indexInt(i, len(items), "list")
		if err != nil {
			return Nil, err
		}
		return items[j], nil
	case MapKind:
		v, ok := x.Map().Get(i)
		if !ok {
			if _, valid := keyOf(i); !valid {
				return Nil, vm.errorf("invalid map key of type %s", i.TypeName())
			}
			return Nil, vm.errorf("key not found: %s", i.Repr())
		}
		return v, nil
	case StringKind:
		s := x.Str()
		j, err := indexInt(i, utf8.RuneCountInString(s), "string")
		if err != nil {
			return Nil, err
		}
		return Str(runeAt(s, j)), nil
	}
	return Nil, vm.errorf("cannot index a value of type %s", x.TypeName())
}

// runeAt returns the j-th character of s (which is known to have more than j).
func runeAt(s string, j int) string {
	for off := range s {
		if j == 0 {
			_, size := utf8.DecodeRuneInString(s[off:])
			return s[off : off+size]
		}
		j--
	}
	return ""
}

func (vm *VM) setIndex(x, i, v Value) error {
	switch x.k {
	case ListKind:
		l := x.List()
		j, err := indexInt(i, len(l.Items), "list")
		if err != nil {
			return err
		}
		l.own()
		l.Items[j] = v
		return nil
	case MapKind:
		if !x.Map().Set(i, v) {
			return vm.errorf("invalid map key of type %s (keys are int, string or bool)", i.TypeName())
		}
		return nil
	case StringKind:
		return vm.errorf("strings are immutable")
	}
	return vm.errorf("cannot assign to an index of a value of type %s", x.TypeName())
}

func (vm *VM) interp(parts []Value) (string, error) {
	var b strings.Builder
	for _, p := range parts {
		if p.k == StringKind {
			b.WriteString(p.Str())
		} else {
			b.WriteString(p.String())
		}
		if b.Len() > MaxStringBytes {
			return "", vm.errorf("string too long (limit %d bytes)", MaxStringBytes)
		}
	}
	return b.String(), nil
}

// parseInt reads a decimal int the way int("...") does (surrounding spaces allowed).
func parseInt(s string) (int64, bool) {
	i, err := strconv.ParseInt(strings.TrimSpace(strings.ReplaceAll(s, "_", "")), 10, 64)
	return i, err == nil
}
