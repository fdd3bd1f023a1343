package vm

import (
	"strconv"
	"strings"
	"testing"
)

// The map's inline cache (the entry of the last string found) must give the same answers
// as the index: after updates, deletions, compaction and a re-insertion under the same
// string, and for equal strings at other addresses.
func TestMapStringCache(t *testing.T) {
	m := NewMap(0)
	w := Str(strings.Repeat("w", 3)) // its own bytes: lookups of w hit the cache
	same := Str("www")               // equal bytes elsewhere
	get := func(k Value) int64 {
		t.Helper()
		v, ok := m.Get(k)
		if !ok {
			return -1
		}
		return v.Int()
	}
	// Keys before w, so that deleting them compacts the table and moves w's entry.
	var keys []Value
	for i := range 40 {
		k := Str("k" + strconv.Itoa(i))
		keys = append(keys, k)
		m.Set(k, Int(int64(100+i)))
	}
	m.Set(w, Int(1))
	if got := get(w); got != 1 {
		t.Fatalf("get w = %d, want 1", got)
	}
	m.Set(w, Int(2)) // an update through the cache
	if got, got2 := get(w), get(same); got != 2 || got2 != 2 {
		t.Fatalf("after update: w %d, equal string %d, want 2, 2", got, got2)
	}
	_ = get(w) // w cached at its entry (40) before the deletions
	for _, k := range keys[:30] {
		m.Delete(k)
	}
	if got := get(w); got != 2 {
		t.Fatalf("after compaction: w = %d, want 2", got)
	}
	if got := get(keys[35]); got != 135 {
		t.Fatalf("after compaction: k35 = %d, want 135", got)
	}
	m.Delete(same) // w's key, deleted through an equal string
	if got := get(w); got != -1 {
		t.Fatalf("after delete: w = %d, want absent", got)
	}
	m.Set(same, Int(3))
	if got := get(w); got != 3 {
		t.Fatalf("after re-insertion: w = %d, want 3", got)
	}
	if m.Len() != 11 {
		t.Fatalf("len %d, want 11", m.Len())
	}
}
