package vm

import (
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"
)

func builtinRange(vm *VM, a []Value) (Value, error) {
	if err := nargs("range", a, 1, 3); err != nil {
		return Nil, err
	}
	start, end, step := Int(0), a[0], Int(1)
	switch len(a) {
	case 2:
		start, end = a[0], a[1]
	case 3:
		start, end, step = a[0], a[1], a[2]
	}
	itv, err := rangeIter(start, end, step)
	if err != nil {
		return Nil, err
	}
	it := itv.iter()
	n := it.left
	if n > MaxListItems {
		return Nil, Errorf("range too large (%d items, limit %d)", n, MaxListItems)
	}
	if err := vm.charge(int(n)); err != nil {
		return Nil, err
	}
	out := make([]Value, n)
	for i := range out {
		out[i] = Int(it.i)
		it.i += it.step
	}
	return ListOf(out), nil
}

func minMax(vm *VM, name string, a []Value, sign int) (Value, error) {
	items := a
	if len(a) == 1 && a[0].k == ListKind {
		items = a[0].List().Items
	}
	if len(items) == 0 {
		return Nil, Errorf("%s: no values", name)
	}
	best := items[0]
	for _, x := range items[1:] {
		c, err := compareValues(x, best)
		if err != nil {
			return Nil, Errorf("%s: %v", name, err.(*Error).Msg)
		}
		if c*sign > 0 {
			best = x
		}
	}
	return best, vm.charge(len(items))
}

// compareValues orders two numbers or two strings.
func compareValues(x, y Value) (int, error) {
	switch {
	case isNum(x) && isNum(y):
		if x.k == IntKind && y.k == IntKind {
			return cmpInt(x.Int(), y.Int()), nil
		}
		return cmpFloat(toFloat(x), toFloat(y)), nil
	case x.k == StringKind && y.k == StringKind:
		return strings.Compare(x.Str(), y.Str()), nil
	}
	return 0, Errorf("cannot compare %s and %s", x.TypeName(), y.TypeName())
}

// clampRange turns start/end arguments (negative counts from the end) into bounds in [0,n].
func clampRange(a []Value, n int, name string) (int, int, error) {
	start, end := 0, n
	get := func(v Value) (int, error) {
		if v.k != IntKind {
			return 0, Errorf("%s: indexes must be ints, not %s", name, v.TypeName())
		}
		i := int(v.Int())
		if i < 0 {
			i += n
		}
		return max(0, min(i, n)), nil
	}
	var err error
	if len(a) > 1 {
		if start, err = get(a[1]); err != nil {
			return 0, 0, err
		}
	}
	if len(a) > 2 {
		if end, err = get(a[2]); err != nil {
			return 0, 0, err
		}
	}
	if end < start {
		end = start
	}
	return start, end, nil
}

// substr(s, start[, length]) returns length characters of s from start.
func builtinSubstr(vm *VM, a []Value) (Value, error) {
	if err := nargs("substr", a, 2, 3); err != nil {
		return Nil, err
	}
	if err := argKind("substr", a, 0, StringKind); err != nil {
		return Nil, err
	}
	runes := []rune(a[0].Str())
	start, _, err := clampRange(a[:2], len(runes), "substr")
	if err != nil {
		return Nil, err
	}
	end := len(runes)
	if len(a) == 3 {
		if a[2].k != IntKind || a[2].Int() < 0 {
			return Nil, Errorf("substr: length must be a non-negative int")
		}
		end = min(len(runes), start+int(min(a[2].Int(), int64(len(runes)))))
	}
	return Str(string(runes[start:end])), vm.charge(len(runes) / 8)
}

// slice(x, start[, end]) returns the part of a list or string between two indexes.
func builtinSlice(vm *VM, a []Value) (Value, error) {
	if err := nargs("slice", a, 2, 3); err != nil {
		return Nil, err
	}
	switch x := a[0]; x.k {
	case ListKind:
		items := x.List().Items
		start, end, err := clampRange(a, len(items), "slice")
		if err != nil {
			return Nil, err
		}
		return ListOf(slices.Clone(items[start:end])), vm.charge(end - start)
	case StringKind:
		s := x.Str()
		if !utf8.ValidString(s) || len(s) != utf8.RuneCountInString(s) {
			runes := []rune(s)
			start, end, err := clampRange(a, len(runes), "slice")
			if err != nil {
				return Nil, err
			}
			return Str(string(runes[start:end])), nil
		}
		start, end, err := clampRange(a, len(s), "slice")
		if err != nil {
			return Nil, err
		}
		return Str(s[start:end]), nil
	}
	return Nil, Errorf("slice: argument 1 must be list or string, not %s", a[0].TypeName())
}

func builtinSorted(vm *VM, a []Value) (Value, error) {
	if err := nargs("sorted", a, 1, 1); err != nil {
		return Nil, err
	}
	if err := argKind("sorted", a, 0, ListKind); err != nil {
		return Nil, err
	}
	items := slices.Clone(a[0].List().Items)
	if err := vm.charge(len(items) * 4); err != nil {
		return Nil, err
	}
	var bad error
	slices.SortStableFunc(items, func(x, y Value) int {
		c, err := compareValues(x, y)
		if err != nil && bad == nil {
			bad = Errorf("sorted: %s", err.(*Error).Msg)
		}
		return c
	})
	if bad != nil {
		return Nil, bad
	}
	return ListOf(items), nil
}

// format(f, args...) replaces each {} in f by the next argument as str() prints it;
// {{ and }} stand for braces.
func builtinFormat(vm *VM, a []Value) (Value, error) {
	if len(a) == 0 {
		return Nil, Errorf("wrong argument count: format expects at least 1, got 0")
	}
	if err := argKind("format", a, 0, StringKind); err != nil {
		return Nil, err
	}
	f := a[0].Str()
	var b strings.Builder
	next := 1
	for i := 0; i < len(f); i++ {
		switch {
		case strings.HasPrefix(f[i:], "{{"):
			b.WriteByte('{')
			i++
		case strings.HasPrefix(f[i:], "}}"):
			b.WriteByte('}')
			i++
		case strings.HasPrefix(f[i:], "{}"):
			if next >= len(a) {
				return Nil, Errorf("format: not enough arguments for %q", f)
			}
			b.WriteString(a[next].String())
			next++
			i++
		default:
			b.WriteByte(f[i])
		}
		if b.Len() > MaxStringBytes {
			return Nil, Errorf("format: string too long")
		}
	}
	if next < len(a) {
		return Nil, Errorf("format: %d arguments but %d placeholders", len(a)-1, next-1)
	}
	return Str(b.String()), vm.charge(b.Len() / 8)
}

func mapFilter(vm *VM, name string, a []Value) (Value, error) {
	if err := nargs(name, a, 2, 2); err != nil {
		return Nil, err
	}
	if err := argKind(name, a, 0, ListKind); err != nil {
		return Nil, err
	}
	if err := argKind(name, a, 1, FuncKind, BuiltinKind); err != nil {
		return Nil, err
	}
	// The items as they are now, read in place: a change to the list by fn (setting an
	// item, pop) moves the list to a copy first (List.own), so fn cannot change them.
	l := a[0].List()
	items := l.Items
	prev := l.snap
	l.snap = unsafe.SliceData(items)
	defer func() { l.snap = prev }()
	fn := a[1]
	out := make([]Value, 0, len(items))
	for _, x := range items {
		r, err := vm.Call(fn, x)
		if err != nil {
			return Nil, err
		}
		if name == "map" {
			out = append(out, r)
		} else if r.Truth() {
			out = append(out, x)
		}
	}
	return ListOf(out), nil
}
