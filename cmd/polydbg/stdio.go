package main

import (
	"os"
	"runtime"
	"syscall"
)

// pollableStdin returns standard input ready for Go's poller when it is a pipe or a socket,
// so that a read waits in the runtime's poller instead of holding a thread in read(2): a
// command that arrives then wakes the goroutine that waits for it on the thread already
// running, without a thread hand-off (what a step's round trip costs over stdio). A terminal
// or a file is returned as it is. Only for a front end whose standard input carries its
// protocol alone: a child given this descriptor would find it non-blocking.
func pollableStdin() *os.File {
	fi, err := os.Stdin.Stat()
	if err != nil || fi.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return os.Stdin
	}
	if err := syscall.SetNonblock(0, true); err != nil {
		return os.Stdin
	}
	return os.NewFile(0, "/dev/stdin")
}

// oneProcessor runs Go code on one processor (GOMAXPROCS=1) unless the environment says
// otherwise, for a front end that serves one client over stdio: a command, the program's
// step and the answer then pass from goroutine to goroutine on the thread already running
// instead of waking another (half the thread switches of a step), and the Kite programs of
// bench/programs run as fast or faster (the collector has no other processor to coordinate
// with). Measured in docs/PERFORMANCE.md.
func oneProcessor() {
	if os.Getenv("GOMAXPROCS") == "" {
		runtime.GOMAXPROCS(1)
	}
}
