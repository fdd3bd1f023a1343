package vm

import "unsafe"

// Map is a Kite map: keys are ints, strings or bools, iteration follows insertion order.
// Deleted entries leave holes that are compacted once they are half the table. The index
// from key to entry is one Go map per key kind, so that string and int keys take Go's fast
// paths (no hashing of a composite key).
type Map struct {
	keys  []Value
	vals  []Value
	live  []bool
	strs  map[string]int
	ints  map[int64]int
	bools [2]int // entry+1 of false and true; 0: absent
	holes int
	// A one-entry inline cache of string lookups: the entry of the string whose bytes are at
	// lastP, lastN long. The same string looked up again (the w of `if contains(m, w) {
	// m[w] += 1 }`, three lookups of one word) is found without hashing. A string's bytes never
	// change, so the same address and length are the same key; a deletion moves entries and
	// empties the cache.
	lastP  unsafe.Pointer
	lastN  uint64
	lastAt int
}

func NewMap(sizeHint int) *Map {
	return &Map{strs: make(map[string]int, sizeHint)}
}

// mapKey is a key in its comparable form, for keyOf's callers.
type mapKey struct {
	k Kind
	n uint64
	s string
}

// keyOf returns the key v stands for; ok is false for kinds that cannot be keys.
func keyOf(v Value) (mapKey, bool) {
	switch v.k {
	case IntKind, BoolKind:
		return mapKey{k: v.k, n: v.n}, true
	case StringKind:
		return mapKey{k: StringKind, s: v.Str()}, true
	case FloatKind:
		// A float with an integral value is the same key as that int (1.0 and 1).
		f := v.Float()
		if i := int64(f); float64(i) == f {
			return mapKey{k: IntKind, n: uint64(i)}, true
		}
	}
	return mapKey{}, false
}

// find returns the entry of k; valid is false when k cannot be a key.
func (m *Map) find(k Value) (i int, found, valid bool) {
	switch k.k {
	case StringKind:
		if k.p == m.lastP && k.n == m.lastN && k.p != nil {
			return m.lastAt, true, true
		}
		if i, found = m.strs[k.Str()]; found {
			m.lastP, m.lastN, m.lastAt = k.p, k.n, i
		}
		return i, found, true
	case IntKind:
		i, found = m.ints[int64(k.n)]
		return i, found, true
	case BoolKind:
		i = m.bools[k.n&1] - 1
		return i, i >= 0, true
	}
	mk, ok := keyOf(k)
	if !ok {
		return 0, false, false
	}
	i, found = m.ints[int64(mk.n)]
	return i, found, true
}

// setIndex records that key k (a valid key) is entry i.
func (m *Map) setIndex(k Value, i int) {
	switch k.k {
	case StringKind:
		m.strs[k.Str()] = i
	case BoolKind:
		m.bools[k.n&1] = i + 1
	default:
		mk, _ := keyOf(k)
		if m.ints == nil {
			m.ints = map[int64]int{}
		}
		m.ints[int64(mk.n)] = i
	}
}

// deleteIndex forgets key k (a valid key).
func (m *Map) deleteIndex(k Value) {
	switch k.k {
	case StringKind:
		delete(m.strs, k.Str())
	case BoolKind:
		m.bools[k.n&1] = 0
	default:
		mk, _ := keyOf(k)
		delete(m.ints, int64(mk.n))
	}
}

func (m *Map) Len() int { return len(m.keys) - m.holes }

func (m *Map) Get(k Value) (Value, bool) {
	i, found, _ := m.find(k)
	if !found {
		return Nil, false
	}
	return m.vals[i], true
}

// Set inserts or updates; ok is false when k cannot be a key.
func (m *Map) Set(k, v Value) bool {
	i, found, valid := m.find(k)
	if !valid {
		return false
	}
	if found {
		m.vals[i] = v
		return true
	}
	m.setIndex(k, len(m.keys))
	m.keys = append(m.keys, k)
	m.vals = append(m.vals, v)
	m.live = append(m.live, true)
	return true
}

// Delete removes k and reports whether it was there.
func (m *Map) Delete(k Value) bool {
	i, found, _ := m.find(k)
	if !found {
		return false
	}
	m.deleteIndex(m.keys[i])
	m.lastP = nil
	m.live[i] = false
	m.keys[i], m.vals[i] = Nil, Nil
	m.holes++
	if m.holes > 16 && m.holes*2 > len(m.keys) {
		m.compact()
	}
	return true
}

func (m *Map) compact() {
	j := 0
	for i := range m.keys {
		if !m.live[i] {
			continue
		}
		m.keys[j], m.vals[j], m.live[j] = m.keys[i], m.vals[i], true
		m.setIndex(m.keys[j], j)
		j++
	}
	clear(m.keys[j:])
	clear(m.vals[j:])
	m.keys, m.vals, m.live = m.keys[:j], m.vals[:j], m.live[:j]
	m.holes = 0
}

// Range calls f for each entry in insertion order until f returns false.
func (m *Map) Range(f func(k, v Value) bool) {
	for i := range m.keys {
		if m.live[i] && !f(m.keys[i], m.vals[i]) {
			return
		}
	}
}

// Keys returns the keys in insertion order.
func (m *Map) Keys() []Value {
	out := make([]Value, 0, m.Len())
	m.Range(func(k, _ Value) bool { out = append(out, k); return true })
	return out
}
