package gdbremote

import "context"

// QEMUOptions configure StartQEMUWith.
type QEMUOptions struct {
	// Serial gives QEMU's -serial backends in order (UART0, UART1...), e.g. "file:/tmp/u0",
	// "tcp:127.0.0.1:4444,server,nowait"; none means "-serial null".
	Serial []string
	// Extra arguments appended to QEMU's command line.
	Extra []string
	// Path of the executable (default qemu-system-arm).
	Path string
}

// StartQEMUWith is StartQEMUTarget with a choice of serial backends and extra arguments.
func StartQEMUWith(ctx context.Context, machine, elfPath string, qo QEMUOptions, cfg Config) (*Target, error) {
	return launch(ctx, elfPath, cfg, false, func(opts StubOptions) (*Stub, error) {
		opts.Path, opts.Extra, opts.Serial = qo.Path, qo.Extra, qo.Serial
		return StartQEMU(ctx, machine, elfPath, opts)
	})
}
