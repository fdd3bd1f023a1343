package launch

import (
	"errors"

	"github.com/polydbg/polydbg/backend/kitevm"
	"github.com/polydbg/polydbg/engine/profile"
	"github.com/polydbg/polydbg/kite/vm"
)

// ErrNoProfile says a debuggee records no profile (not Kite, or started without Spec.Profile).
var ErrNoProfile = errors.New("launch: this debuggee records no profile")

// ProfileReport returns the Kite profile so far: read on the VM goroutine while the program
// is stopped (the profiler belongs to that goroutine), or as finished once it ended. While
// the program runs it returns an error wrapping engine.ErrNotStopped.
func (d *Debuggee) ProfileReport() (profile.Report, error) {
	if d.Profiler == nil {
		return profile.Report{}, ErrNoProfile
	}
	if d.State().Ended() {
		return d.Profiler.Report(), nil
	}
	t, ok := d.Target().(*kitevm.Target)
	if !ok {
		return profile.Report{}, ErrNoProfile
	}
	var r profile.Report
	if err := t.Inspect(func(*vm.VM) { r = d.Profiler.Report() }); err != nil {
		return profile.Report{}, err
	}
	return r, nil
}
