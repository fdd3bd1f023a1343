package kitevm

import (
	"math"
	"syscall"
)

// longRun is how many cycles a plain program runs after a start or a resume before the
// target makes sure Go's monitor thread is awake (about a millisecond of Kite code).
const longRun = 1 << 20

// watchLongRun arms the VM's cycle limit, when no console uses it, so that a program that
// runs long calls OutOfCycles once (wakeMonitor). With Go on one processor (GOMAXPROCS=1,
// a one-CPU machine) and a front end that waited for its client, nothing else wakes the
// runtime's monitor (sysmon), and without it a program that never stops is never preempted
// for the goroutine that reads the next command (a pause). A step or a short run never
// reaches the limit and costs nothing.
func (t *Target) watchLongRun() {
	if t.opts.OutOfCycles == nil {
		t.vm.SetCycleLimit(t.vm.Cycles() + longRun)
	}
}

// longRunning is OutOfCycles for a plain program: it wakes the monitor and lifts the limit.
func (t *Target) longRunning() {
	t.goOnAlone()
	wakeMonitor()
	t.vm.SetCycleLimit(math.MaxInt64)
}

// wakeMonitor makes an ordinary system call: entering one wakes Go's monitor thread when
// it sleeps.
func wakeMonitor() { _, _, _ = syscall.Syscall(syscall.SYS_GETPID, 0, 0, 0) }
