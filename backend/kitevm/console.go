package kitevm

import "github.com/polydbg/polydbg/kite/vm"

// Inspect runs f with the VM, on the program's coroutine, while the program is stopped (a
// console's debugger reads its counters and operand stack this way). It returns
// engine.ErrNotStopped when the program is not stopped.
func (t *Target) Inspect(f func(v *vm.VM)) error { return t.do(func() { f(t.vm) }) }
