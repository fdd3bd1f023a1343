package aether

import (
	"context"
	"errors"

	"github.com/polydbg/polydbg/backend/gdbremote"
)

// Launch says how to reach the target: exactly one of Gdb, QEMU and Native.
type Launch struct {
	Gdb    string   // HOST:PORT of a running stub (QEMU, OpenOCD, pyOCD, probe-rs, J-Link, gdbserver)
	QEMU   string   // a qemu-system-arm machine (lm3s6965evb, mps2-an385...) to start with ELF
	Native string   // a Linux program to start under gdbserver
	Args   []string // its arguments
	ELF    string   // the firmware or program (Native defaults it to the program)
	// QEMUSerial are QEMU's -serial backends (UART0, UART1...); default none.
	QEMUSerial []string
}

// Start connects to or starts the target.
func (l Launch) Start(ctx context.Context, cfg gdbremote.Config) (*gdbremote.Target, error) {
	n := 0
	for _, s := range []string{l.Gdb, l.QEMU, l.Native} {
		if s != "" {
			n++
		}
	}
	if n != 1 {
		return nil, errors.New("aether: give exactly one of --gdb, --qemu and --native")
	}
	switch {
	case l.Native != "":
		return gdbremote.LaunchNative(ctx, l.Native, l.Args, cfg)
	case l.ELF == "":
		return nil, errors.New("aether: --elf is required")
	case l.QEMU != "":
		return gdbremote.StartQEMUWith(ctx, l.QEMU, l.ELF, gdbremote.QEMUOptions{Serial: l.QEMUSerial}, cfg)
	}
	return gdbremote.Connect(ctx, l.Gdb, l.ELF, cfg)
}
