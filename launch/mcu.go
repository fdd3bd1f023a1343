package launch

import (
	"github.com/polydbg/polydbg/backend/gdbremote"
	"github.com/polydbg/polydbg/backend/mcu"
)

// MCUOptions configure the microcontroller service of a debuggee behind a GDB stub (RTT
// polling period and control block address).
type MCUOptions = mcu.Options

// DefaultPollPeriod is how often the service drains RTT while the core runs.
const DefaultPollPeriod = mcu.DefaultPollPeriod

// startMCU starts the microcontroller service (RTT, plots, samples, RTOS tasks,
// peripherals) of a debuggee behind a GDB stub: firmware in QEMU or on a probe, and a
// native program (its threads, sampled variables).
func (d *Debuggee) startMCU() {
	if t, ok := d.Target().(*gdbremote.Target); ok {
		d.MCU = mcu.New(d.Session, t, d.Device, d.Spec.MCU)
	}
}
