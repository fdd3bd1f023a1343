package gdbremote

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strconv"
	"sync"
)

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
	var t *Target
	var mu sync.Mutex
	out := &lineSink{fn: func(s string) {
		mu.Lock()
		tt := t
		mu.Unlock()
		if tt != nil {
			tt.output("stdout", s)
		}
	}}
	path := qo.Path
	if path == "" {
		path = "qemu-system-arm"
	}
	serial := qo.Serial
	if len(serial) == 0 {
		serial = []string{"null"}
	}
	var stub *Stub
	var lastErr error
	for range 5 {
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		addr := "127.0.0.1:" + strconv.Itoa(port)
		argv := []string{"-M", machine, "-nographic", "-monitor", "none"}
		for _, s := range serial {
			argv = append(argv, "-serial", s)
		}
		argv = append(argv, "-semihosting-config", "enable=on,target=native",
			"-S", "-gdb", "tcp:"+addr, "-kernel", elfPath)
		argv = append(argv, qo.Extra...)
		s, buf, err := startStub(exec.Command(path, argv...), StubOptions{Output: out})
		if err != nil {
			return nil, err
		}
		s.Addr = addr
		if err := waitListening(ctx, addr, s.exited); err == nil {
			stub = s
			break
		} else if errors.Is(err, errExited) {
			lastErr = fmt.Errorf("gdbremote: qemu exited: %s", buf.String())
			continue
		} else {
			s.Stop()
			return nil, err
		}
	}
	if stub == nil {
		return nil, lastErr
	}
	tt, err := connect(ctx, stub.Addr, elfPath, cfg, stub, false)
	if err != nil {
		stub.Stop()
		return nil, err
	}
	mu.Lock()
	t = tt
	mu.Unlock()
	return tt, nil
}
