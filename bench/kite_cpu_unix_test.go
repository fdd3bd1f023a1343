//go:build unix

package bench

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system) the process has used so far, all threads
// (the garbage collector's included), plus that of its children that have ended (the C Lua
// peer runs as a child process). Unlike wall-clock time it does not count the time other
// processes of a shared machine hold the cores.
func cpuTime() (time.Duration, bool) {
	var self, children syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &self) != nil || syscall.Getrusage(syscall.RUSAGE_CHILDREN, &children) != nil {
		return 0, false
	}
	ns := self.Utime.Nano() + self.Stime.Nano() + children.Utime.Nano() + children.Stime.Nano()
	return time.Duration(ns), true
}
