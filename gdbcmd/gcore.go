package gdbcmd

import (
	"fmt"

	"github.com/polydbg/polydbg/engine"
)

// cmdGcore is gdb's gcore [FILE] (generate-core-file): the stopped program written as a
// core dump, core.PID by default.
func cmdGcore(d *Debugger, args string) bool {
	if !d.live() {
		d.fail("The program is not being run.\n")
		return false
	}
	cd, ok := d.s.Target().(engine.CoreDumper)
	if !ok {
		d.fail("Can't create a corefile\n")
		return false
	}
	file := args
	if file == "" {
		file = fmt.Sprintf("core.%d", d.s.ProcessID())
	}
	if err := cd.DumpCore(file); err != nil {
		d.fail("Can't create a corefile: %s\n", explain(err))
		return false
	}
	d.printf("Saved corefile %s\n", file)
	return false
}
