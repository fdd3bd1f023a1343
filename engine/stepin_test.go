package engine

import "testing"

// While a step into a call runs, the session's filter passes over every function but the
// one named, whatever the user's filter says, and the calls of it before the one wanted; at the next halt it is the user's again, and
// a user's filter set meanwhile is kept for then.
func TestStepIntoFilter(t *testing.T) {
	var si stepInto
	if si.filter("f", "a.c") {
		t.Error("no filter passes over f")
	}
	user := StepFilter(func(fn, _ string) bool { return fn == "lib" })
	si.user.Store(&user)
	add := "add"
	si.target.Store(&add)
	for fn, over := range map[string]bool{"add": false, "sq": true, "lib": true} {
		if got := si.filter(fn, "a.c"); got != over {
			t.Errorf("into add: %s passed over %v, want %v", fn, got, over)
		}
	}
	si.skip.Store(1) // the second call of add: the first passed over
	if !si.filter("add", "a.c") || si.filter("add", "a.c") {
		t.Error("the first call of add was not passed over, or the second was")
	}
	s := &Session{}
	s.into.user.Store(&user)
	s.into.target.Store(&add)
	s.halted(Stopped, &Stop{}, 0)
	if s.into.target.Load() != nil || s.into.filter("sq", "") || !s.into.filter("lib", "") {
		t.Error("after the halt the user's filter is not the one used")
	}
}
