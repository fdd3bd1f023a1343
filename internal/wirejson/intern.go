package wirejson

import "sync/atomic"

// The short strings of decoded messages ("command", "stepInto", "next") come back in
// every message: they are kept in a small table and reused instead of allocated again.
// A slot holds the last string that hashed to it; a miss costs one allocation more.

const (
	internMax   = 32 // longer strings are not kept: they are names and text, seldom repeated
	internSlots = 256
)

var interned [internSlots]atomic.Pointer[string]

// intern returns string(b), without an allocation when a slot holds it.
func intern(b []byte) string {
	if len(b) == 0 || len(b) > internMax {
		return string(b)
	}
	h := uint32(2166136261) // FNV-1a
	for _, c := range b {
		h = (h ^ uint32(c)) * 16777619
	}
	slot := &interned[h%internSlots]
	if p := slot.Load(); p != nil && *p == string(b) {
		return *p
	}
	s := string(b)
	slot.Store(&s)
	return s
}
