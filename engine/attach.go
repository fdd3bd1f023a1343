package engine

import (
	"context"
	"time"
)

// AttachedTarget is implemented by targets that can debug a program they did not start
// (gdb's attach). Closing the session of an attached program lets it go on, as gdb's quit
// does, where a program the debugger started is killed.
type AttachedTarget interface {
	Attached() bool
}

// Attached reports whether the debuggee is a program that was running before the session
// attached to it.
func (s *Session) Attached() bool {
	a, ok := s.t.(AttachedTarget)
	return ok && a.Attached()
}

// detachGrace bounds how long Close waits for a running attached program to pause before
// it detaches.
const detachGrace = 5 * time.Second

// letGo ends the session of an attached program by detaching from it; false when there is
// nothing to detach from or detaching failed (Close then terminates, as for any program).
func (s *Session) letGo() bool {
	if !s.Attached() {
		return false
	}
	if st := s.State(); st.Ended() {
		return true
	}
	ctx, cancel := context.WithTimeout(context.Background(), detachGrace)
	defer cancel()
	return s.Detach(ctx) == nil
}
