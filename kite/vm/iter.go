package vm

import (
	"unicode/utf8"
	"unsafe"
)

type iterKindT uint8

const (
	iterList iterKindT = iota
	iterMap
	iterString
	iterRange
)

// iterator is the state of one for loop.
type iterator struct {
	kind  iterKindT
	pairs bool // yield (key, value) / (index, item)
	list  *List
	m     *Map
	keys  []Value
	s     string
	i     int64 // next index (list, keys) or byte offset (string) or value (range)
	n     int64 // character index for strings
	end   int64
	step  int64
	left  uint64 // range: values still to yield (overflow-free; see rangeIter)
}

func iterValue(it *iterator) Value { return Value{k: iterKind, p: unsafe.Pointer(it)} }

func (vm *VM) newIter(x Value, pairs bool) (Value, error) {
	it := &iterator{pairs: pairs}
	switch x.k {
	case ListKind:
		it.kind, it.list = iterList, x.List()
	case MapKind:
		it.kind, it.m = iterMap, x.Map()
		it.keys = it.m.Keys()
	case StringKind:
		it.kind, it.s = iterString, x.Str()
	default:
		return Nil, vm.errorf("cannot iterate over a value of type %s", x.TypeName())
	}
	return iterValue(it), nil
}

func rangeIter(a, b, step Value) (Value, error) {
	if a.k != IntKind || b.k != IntKind || step.k != IntKind {
		return Nil, Errorf("range arguments must be ints, not %s, %s, %s", a.TypeName(), b.TypeName(), step.TypeName())
	}
	if step.Int() == 0 {
		return Nil, Errorf("range step must not be zero")
	}
	it := &iterator{kind: iterRange, i: a.Int(), end: b.Int(), step: step.Int()}
	it.left = rangeLen(it.i, it.end, it.step)
	return iterValue(it), nil
}

// rangeLen is how many values range(start, end, step) has, computed without overflow
// (range(-9e18, 9e18) has more values than an int64 difference can hold).
func rangeLen(start, end, step int64) uint64 {
	switch {
	case step > 0 && start < end:
		return (uint64(end)-uint64(start)-1)/uint64(step) + 1
	case step < 0 && start > end:
		return (uint64(start)-uint64(end)-1)/(-uint64(step)) + 1
	}
	return 0
}

// take returns a range's next int and moves past it; the caller checked it.left > 0 (a
// count, not a comparison: no overflow at the int64 limits).
func (it *iterator) take() Value {
	it.left--
	r := Value{k: IntKind, n: uint64(it.i)}
	it.i += it.step
	return r
}

// next returns the next item (and its pair value), or ok false at the end.
func (it *iterator) next() (k, v Value, ok bool) {
	switch it.kind {
	case iterRange:
		if it.left > 0 {
			return it.take(), Nil, true
		}
		return Nil, Nil, false
	case iterList:
		if it.i >= int64(len(it.list.Items)) {
			return Nil, Nil, false
		}
		i := it.i
		it.i++
		if it.pairs {
			return Int(i), it.list.Items[i], true
		}
		return it.list.Items[i], Nil, true
	case iterMap:
		for it.i < int64(len(it.keys)) {
			key := it.keys[it.i]
			it.i++
			if val, present := it.m.Get(key); present {
				return key, val, true
			}
		}
		return Nil, Nil, false
	case iterString:
		if it.i >= int64(len(it.s)) {
			return Nil, Nil, false
		}
		_, size := utf8.DecodeRuneInString(it.s[it.i:])
		ch := Str(it.s[it.i : it.i+int64(size)])
		it.i += int64(size)
		it.n++
		if it.pairs {
			return Int(it.n - 1), ch, true
		}
		return ch, Nil, true
	}
	return Nil, Nil, false
}
