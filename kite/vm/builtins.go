package vm

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// stdBuiltins are the builtins of the language doc, by name.
var stdBuiltins = map[string]*Builtin{}

func def(name string, pure bool, fn func(vm *VM, args []Value) (Value, error)) {
	stdBuiltins[name] = &Builtin{Name: name, Pure: pure, Fn: fn}
}

// BuiltinNames lists the standard builtins and the host's, sorted: the order in which the
// compiler numbers them.
func BuiltinNames(host []*Builtin) []string {
	names := make([]string, 0, len(stdBuiltins)+len(host))
	for n := range builtinTable(host) {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

func builtinTable(host []*Builtin) map[string]*Builtin {
	if len(host) == 0 {
		return stdBuiltins
	}
	t := make(map[string]*Builtin, len(stdBuiltins)+len(host))
	for k, v := range stdBuiltins {
		t[k] = v
	}
	for _, h := range host {
		t[h.Name] = h
	}
	return t
}

func nargs(name string, args []Value, min, max int) error {
	if len(args) < min || len(args) > max {
		want := strconv.Itoa(min)
		if max != min {
			want = fmt.Sprintf("%d to %d", min, max)
		}
		return Errorf("wrong argument count: %s expects %s, got %d", name, want, len(args))
	}
	return nil
}

func argKind(name string, args []Value, i int, kinds ...Kind) error {
	for _, k := range kinds {
		if args[i].k == k {
			return nil
		}
	}
	names := make([]string, len(kinds))
	for j, k := range kinds {
		names[j] = k.String()
	}
	return Errorf("%s: argument %d must be %s, not %s", name, i+1, strings.Join(names, " or "), args[i].TypeName())
}

// charge accounts work a builtin does in proportion to its input, so that a pure
// evaluation's budget also bounds builtins such as range or sorted.
// It also enforces Options.MaxCycles, which the interpreter checks only at loop back edges
// and calls: a straight line of expensive builtin calls stops too.
func (vm *VM) charge(n int) error {
	vm.cycles += int64(n)
	if vm.evalDepth > 0 && vm.cycles > vm.evalLimit {
		return Errorf("evaluation budget exceeded")
	}
	if vm.opts.MaxCycles > 0 && vm.cycles >= vm.opts.MaxCycles {
		return Errorf("cycle limit exceeded (%d cycles)", vm.opts.MaxCycles)
	}
	return nil
}

func init() {
	def("len", true, func(vm *VM, a []Value) (Value, error) {
		if err := nargs("len", a, 1, 1); err != nil {
			return Nil, err
		}
		switch a[0].k {
		case StringKind:
			return Int(int64(utf8.RuneCountInString(a[0].Str()))), nil
		case ListKind:
			return Int(int64(len(a[0].List().Items))), nil
		case MapKind:
			return Int(int64(a[0].Map().Len())), nil
		}
		return Nil, Errorf("len: a value of type %s has no length", a[0].TypeName())
	})
	def("str", true, func(vm *VM, a []Value) (Value, error) {
		if err := nargs("str", a, 1, 1); err != nil {
			return Nil, err
		}
		s := a[0].String()
		if len(s) > MaxStringBytes {
			return Nil, Errorf("str: string too long (limit %d bytes)", MaxStringBytes)
		}
		return Str(s), vm.charge(len(s) / 8)
	})
	def("type", true, func(vm *VM, a []Value) (Value, error) {
		if err := nargs("type", a, 1, 1); err != nil {
			return Nil, err
		}
		return Str(a[0].TypeName()), nil
	})
	def("int", true, func(vm *VM, a []Value) (Value, error) {
		if err := nargs("int", a, 1, 1); err != nil {
			return Nil, err
		}
		switch v := a[0]; v.k {
		case IntKind:
			return v, nil
		case FloatKind:
			f := v.Float()
			if !fitsInt(f) {
				return Nil, Errorf("int: %s does not fit an int", FormatFloat(f))
			}
			return Int(int64(f)), nil
		case StringKind:
			if i, ok := parseInt(v.Str()); ok {
				return Int(i), nil
			}
			return Nil, Errorf("int: invalid decimal string %s", v.Repr())
		case BoolKind:
			return Int(int64(v.n)), nil
		}
		return Nil, Errorf("int: cannot convert %s", a[0].TypeName())
	})
	def("float", true, func(vm *VM, a []Value) (Value, error) {
		if err := nargs("float", a, 1, 1); err != nil {
			return Nil, err
		}
		switch v := a[0]; v.k {
		case IntKind:
			return Float(float64(v.Int())), nil
		case FloatKind:
			return v, nil
		case StringKind:
			f, err := strconv.ParseFloat(strings.TrimSpace(v.Str()), 64)
			if err != nil {
				return Nil, Errorf("float: invalid number %s", v.Repr())
			}
			return Float(f), nil
		}
		return Nil, Errorf("float: cannot convert %s", a[0].TypeName())
	})
	def("range", true, builtinRange)
	def("keys", true, func(vm *VM, a []Value) (Value, error) {
		if err := nargs("keys", a, 1, 1); err != nil {
			return Nil, err
		}
		if err := argKind("keys", a, 0, MapKind); err != nil {
			return Nil, err
		}
		return ListOf(a[0].Map().Keys()), vm.charge(a[0].Map().Len())
	})
	def("values", true, func(vm *VM, a []Value) (Value, error) {
		if err := nargs("values", a, 1, 1); err != nil {
			return Nil, err
		}
		if err := argKind("values", a, 0, MapKind); err != nil {
			return Nil, err
		}
		out := make([]Value, 0, a[0].Map().Len())
		a[0].Map().Range(func(_, v Value) bool { out = append(out, v); return true })
		return ListOf(out), vm.charge(len(out))
	})
	def("contains", true, func(vm *VM, a []Value) (Value, error) {
		if err := nargs("contains", a, 2, 2); err != nil {
			return Nil, err
		}
		switch c := a[0]; c.k {
		case ListKind:
			if err := vm.charge(len(c.List().Items)); err != nil {
				return Nil, err
			}
			for _, x := range c.List().Items {
				if Equal(x, a[1]) {
					return True, nil
				}
			}
			return False, nil
		case MapKind:
			_, ok := c.Map().Get(a[1])
			return Bool(ok), nil
		case StringKind:
			if err := argKind("contains", a, 1, StringKind); err != nil {
				return Nil, err
			}
			return Bool(strings.Contains(c.Str(), a[1].Str())), vm.charge(len(c.Str()) / 8)
		}
		return Nil, Errorf("contains: cannot search a value of type %s", a[0].TypeName())
	})
	def("abs", true, func(vm *VM, a []Value) (Value, error) {
		if err := nargs("abs", a, 1, 1); err != nil {
			return Nil, err
		}
		switch v := a[0]; v.k {
		case IntKind:
			if v.Int() < 0 {
				return Int(-v.Int()), nil
			}
			return v, nil
		case FloatKind:
			return Float(math.Abs(v.Float())), nil
		}
		return Nil, Errorf("abs: argument must be int or float, not %s", a[0].TypeName())
	})
	def("min", true, func(vm *VM, a []Value) (Value, error) { return minMax(vm, "min", a, -1) })
	def("max", true, func(vm *VM, a []Value) (Value, error) { return minMax(vm, "max", a, 1) })
	def("floor", true, func(vm *VM, a []Value) (Value, error) {
		if err := nargs("floor", a, 1, 1); err != nil {
			return Nil, err
		}
		switch v := a[0]; v.k {
		case IntKind:
			return v, nil
		case FloatKind:
			f := math.Floor(v.Float())
			if !fitsInt(f) {
				return Nil, Errorf("floor: %s does not fit an int", FormatFloat(v.Float()))
			}
			return Int(int64(f)), nil
		}
		return Nil, Errorf("floor: argument must be int or float, not %s", a[0].TypeName())
	})
	def("sqrt", true, func(vm *VM, a []Value) (Value, error) {
		if err := nargs("sqrt", a, 1, 1); err != nil {
			return Nil, err
		}
		if err := argKind("sqrt", a, 0, IntKind, FloatKind); err != nil {
			return Nil, err
		}
		return Float(math.Sqrt(toFloat(a[0]))), nil
	})
	def("upper", true, stringFn("upper", strings.ToUpper))
	def("lower", true, stringFn("lower", strings.ToLower))
	def("split", true, func(vm *VM, a []Value) (Value, error) {
		if err := nargs("split", a, 1, 2); err != nil {
			return Nil, err
		}
		for i := range a {
			if err := argKind("split", a, i, StringKind); err != nil {
				return Nil, err
			}
		}
		if err := vm.charge(len(a[0].Str()) / 4); err != nil {
			return Nil, err
		}
		if len(a) == 1 {
			parts := strings.Fields(a[0].Str())
			out := make([]Value, len(parts))
			for i, p := range parts {
				out[i] = Str(p)
			}
			return ListOf(out), nil
		}
		s, sep := a[0].Str(), a[1].Str()
		if sep == "" {
			return Nil, Errorf("split: empty separator")
		}
		// As strings.Split, straight into the list (no []string in between).
		out := make([]Value, 0, strings.Count(s, sep)+1)
		for {
			i := strings.Index(s, sep)
			if i < 0 {
				break
			}
			out = append(out, Str(s[:i]))
			s = s[i+len(sep):]
		}
		return ListOf(append(out, Str(s))), nil
	})
	def("join", true, func(vm *VM, a []Value) (Value, error) {
		if err := nargs("join", a, 1, 2); err != nil {
			return Nil, err
		}
		if err := argKind("join", a, 0, ListKind); err != nil {
			return Nil, err
		}
		sep := ""
		if len(a) == 2 {
			if err := argKind("join", a, 1, StringKind); err != nil {
				return Nil, err
			}
			sep = a[1].Str()
		}
		var b strings.Builder
		items := a[0].List().Items
		if n := len(sep) * max(len(items)-1, 0); n <= MaxStringBytes { // room for the strings
			for _, x := range items {
				if x.k == StringKind {
					n += int(x.n)
				}
			}
			b.Grow(min(n, MaxStringBytes))
		}
		for i, x := range items {
			if i > 0 {
				b.WriteString(sep)
			}
			b.WriteString(x.String())
			if b.Len() > MaxStringBytes {
				return Nil, Errorf("join: string too long")
			}
		}
		return Str(b.String()), vm.charge(b.Len() / 8)
	})
	def("substr", true, builtinSubstr)
	def("slice", true, builtinSlice)
	def("sorted", true, builtinSorted)
	def("format", true, builtinFormat)

	// Impure builtins: effects on output, on values, on the program's run, or calls.
	def("print", false, func(vm *VM, a []Value) (Value, error) { return Nil, vm.write(vm.opts.Stdout, a, true) })
	def("eprint", false, func(vm *VM, a []Value) (Value, error) { return Nil, vm.write(vm.opts.Stderr, a, false) })
	def("append", false, func(vm *VM, a []Value) (Value, error) {
		if err := nargs("append", a, 2, 2); err != nil {
			return Nil, err
		}
		if err := argKind("append", a, 0, ListKind); err != nil {
			return Nil, err
		}
		l := a[0].List()
		if len(l.Items) >= MaxListItems {
			return Nil, Errorf("list too long (limit %d items)", MaxListItems)
		}
		if len(l.Items) == cap(l.Items) {
			// Double, like Lua's tables: Go's append grows a big slice by only 1.25x,
			// which copies a list built item by item about four times over.
			grown := make([]Value, len(l.Items), max(2*cap(l.Items), 8))
			copy(grown, l.Items)
			l.Items = grown
		}
		l.Items = append(l.Items, a[1])
		return a[0], nil
	})
	def("pop", false, func(vm *VM, a []Value) (Value, error) {
		if err := nargs("pop", a, 1, 1); err != nil {
			return Nil, err
		}
		if err := argKind("pop", a, 0, ListKind); err != nil {
			return Nil, err
		}
		l := a[0].List()
		if len(l.Items) == 0 {
			return Nil, Errorf("pop from an empty list")
		}
		l.own()
		v := l.Items[len(l.Items)-1]
		l.Items[len(l.Items)-1] = Nil
		l.Items = l.Items[:len(l.Items)-1]
		return v, nil
	})
	def("delete", false, func(vm *VM, a []Value) (Value, error) {
		if err := nargs("delete", a, 2, 2); err != nil {
			return Nil, err
		}
		if err := argKind("delete", a, 0, MapKind); err != nil {
			return Nil, err
		}
		return Bool(a[0].Map().Delete(a[1])), nil
	})
	def("map", false, func(vm *VM, a []Value) (Value, error) { return mapFilter(vm, "map", a) })
	def("filter", false, func(vm *VM, a []Value) (Value, error) { return mapFilter(vm, "filter", a) })
	def("time_ns", false, func(vm *VM, a []Value) (Value, error) {
		if err := nargs("time_ns", a, 0, 0); err != nil {
			return Nil, err
		}
		return Int(time.Now().UnixNano()), nil
	})
	def("random", false, func(vm *VM, a []Value) (Value, error) {
		if err := nargs("random", a, 0, 1); err != nil {
			return Nil, err
		}
		r := vm.next64()
		if len(a) == 0 {
			return Float(float64(r>>11) / (1 << 53)), nil
		}
		if a[0].k != IntKind || a[0].Int() <= 0 {
			return Nil, Errorf("random: the bound must be a positive int")
		}
		hi, _ := bits.Mul64(r, uint64(a[0].Int()))
		return Int(int64(hi)), nil
	})
	def("exit", false, func(vm *VM, a []Value) (Value, error) {
		if err := nargs("exit", a, 0, 1); err != nil {
			return Nil, err
		}
		vm.exitCode = 0
		if len(a) == 1 {
			if a[0].k != IntKind {
				return Nil, Errorf("exit: the code must be an int, not %s", a[0].TypeName())
			}
			vm.exitCode = int(a[0].Int())
		}
		return Nil, ErrExit
	})
	def("assert", false, func(vm *VM, a []Value) (Value, error) {
		if err := nargs("assert", a, 1, 2); err != nil {
			return Nil, err
		}
		if a[0].Truth() {
			return Nil, nil
		}
		if len(a) == 2 {
			return Nil, Errorf("assertion failed: %s", a[1].String())
		}
		return Nil, Errorf("assertion failed")
	})
}

// fitsInt reports whether the float f truncates to an int64: -2^63 <= f < 2^63 (NaN does
// not fit).
func fitsInt(f float64) bool { return f >= -(1<<63) && f < 1<<63 }

// next64 is splitmix64: a small deterministic generator seeded per VM.
func (vm *VM) next64() uint64 {
	vm.rng += 0x9E3779B97F4A7C15
	z := vm.rng
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9
	z = (z ^ (z >> 27)) * 0x94D049BB133111EB
	return z ^ (z >> 31)
}

// Rand returns the VM's next pseudo-random number (for host syscalls such as rnd).
func (vm *VM) Rand() uint64 { return vm.next64() }

func (vm *VM) write(w interface{ Write([]byte) (int, error) }, a []Value, counted bool) error {
	var b strings.Builder
	for i, x := range a {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(x.String())
		if b.Len() > MaxStringBytes {
			return Errorf("output too long (limit %d bytes per call)", MaxStringBytes)
		}
	}
	b.WriteByte('\n')
	if err := vm.charge(b.Len() / 8); err != nil {
		return err
	}
	if counted {
		vm.stdoutBytes += int64(b.Len())
	}
	_, err := w.Write([]byte(b.String()))
	if err != nil {
		return Errorf("write failed: %v", err)
	}
	return nil
}

func stringFn(name string, f func(string) string) func(vm *VM, a []Value) (Value, error) {
	return func(vm *VM, a []Value) (Value, error) {
		if err := nargs(name, a, 1, 1); err != nil {
			return Nil, err
		}
		if err := argKind(name, a, 0, StringKind); err != nil {
			return Nil, err
		}
		return Str(f(a[0].Str())), vm.charge(len(a[0].Str()) / 8)
	}
}
