package launch

import (
	"errors"

	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/backend/gdbremote"
	"github.com/polydbg/polydbg/backend/mcu/rtos"
	"github.com/polydbg/polydbg/backend/mcu/rtt"
)

// RTTChannel is what one RTT up-channel held, read and marked read.
type RTTChannel struct {
	Index int
	Name  string
	Data  []byte
}

// Task is one RTOS task of the firmware.
type Task struct {
	Name       string
	Priority   uint32
	State      string // running, ready, blocked, suspended, deleted
	StackUsage uint32 // bytes used at the high-water mark (0 when unknown)
	StackSize  uint32 // bytes (0 when unknown)
	Handle     uint64 // the task control block's address
}

func (d *Debuggee) symbols() (*elfsym.File, error) {
	t, ok := d.Target().(*gdbremote.Target)
	if !ok {
		return nil, errors.New("only firmware and native targets have RTT and RTOS tasks")
	}
	return t.Symbols(), nil
}

// ReadRTT drains the firmware's SEGGER RTT up-channels (control block _SEGGER_RTT) while it
// is stopped: what each held since the last read, which it then marks read, as a host does.
func (d *Debuggee) ReadRTT() ([]RTTChannel, error) {
	sym, err := d.symbols()
	if err != nil {
		return nil, err
	}
	addr, _, ok := sym.Symbol("_SEGGER_RTT")
	if !ok {
		return nil, errors.New("the firmware has no _SEGGER_RTT control block")
	}
	cb, err := rtt.Open(d.Session, addr, sym.Arch.PtrSize, sym.Arch.ByteOrder)
	if err != nil {
		return nil, err
	}
	data, err := cb.ReadAll(d.Session)
	if err != nil {
		return nil, err
	}
	out := make([]RTTChannel, 0, len(cb.Up))
	for _, ch := range cb.Up {
		out = append(out, RTTChannel{Index: ch.Index, Name: ch.Name, Data: data[ch.Index]})
	}
	return out, nil
}

// Tasks lists the FreeRTOS tasks of the stopped firmware (from its kernel's lists, found by
// DWARF).
func (d *Debuggee) Tasks() ([]Task, error) {
	sym, err := d.symbols()
	if err != nil {
		return nil, err
	}
	k, err := rtos.Open(sym)
	if err != nil {
		return nil, err
	}
	ts, err := k.Tasks(d.Session)
	if err != nil {
		return nil, err
	}
	out := make([]Task, 0, len(ts))
	for _, t := range ts {
		out = append(out, Task{Name: t.Name, Priority: t.Priority, State: t.State, StackUsage: t.StackUsage, StackSize: t.StackSize, Handle: t.Handle})
	}
	return out, nil
}
