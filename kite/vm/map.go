package vm

// Map is a Kite map: keys are ints, strings or bools, iteration follows insertion order.
// Deleted entries leave holes that are compacted once they are half the table.
type Map struct {
	keys  []Value
	vals  []Value
	live  []bool
	index map[mapKey]int
	holes int
}

type mapKey struct {
	k Kind
	n uint64
	s string
}

func NewMap(sizeHint int) *Map {
	return &Map{index: make(map[mapKey]int, sizeHint)}
}

// keyOf returns the hash key of v; ok is false for kinds that cannot be keys.
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

func (m *Map) Len() int { return len(m.keys) - m.holes }

func (m *Map) Get(k Value) (Value, bool) {
	mk, ok := keyOf(k)
	if !ok {
		return Nil, false
	}
	i, ok := m.index[mk]
	if !ok {
		return Nil, false
	}
	return m.vals[i], true
}

// Set inserts or updates; ok is false when k cannot be a key.
func (m *Map) Set(k, v Value) bool {
	mk, ok := keyOf(k)
	if !ok {
		return false
	}
	if i, ok := m.index[mk]; ok {
		m.vals[i] = v
		return true
	}
	m.index[mk] = len(m.keys)
	m.keys = append(m.keys, k)
	m.vals = append(m.vals, v)
	m.live = append(m.live, true)
	return true
}

// Delete removes k and reports whether it was there.
func (m *Map) Delete(k Value) bool {
	mk, ok := keyOf(k)
	if !ok {
		return false
	}
	i, ok := m.index[mk]
	if !ok {
		return false
	}
	delete(m.index, mk)
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
		mk, _ := keyOf(m.keys[j])
		m.index[mk] = j
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
