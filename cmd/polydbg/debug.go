package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/polydbg/polydbg/backend/gdbremote"
	"github.com/polydbg/polydbg/backend/kitevm"
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/kite"
	"github.com/polydbg/polydbg/protocol/cli"
)

func init() {
	register(&command{name: "debug", summary: "debug a program in the terminal, with gdb's commands", run: debugCmd})
}

const debugUsage = `usage:
  polydbg debug FILE.kite                      a Kite program
  polydbg debug --native PROG [args...]        a native program, under gdbserver on loopback
  polydbg debug --gdb HOST:PORT --elf FILE     any GDB remote stub (gdbserver, OpenOCD, a probe...)
  polydbg debug --qemu MACHINE FILE.elf        firmware in qemu-system-arm, halted at reset
flags:`

func debugCmd(args []string) int {
	fs := flag.NewFlagSet("debug", flag.ContinueOnError)
	echo := fs.Bool("echo", false, "echo each command (for piped scripts)")
	native := fs.Bool("native", false, "debug a native program under gdbserver")
	gdbAddr := fs.String("gdb", "", "connect to a GDB remote stub at `HOST:PORT`")
	elf := fs.String("elf", "", "the ELF `file` of the program behind --gdb")
	machine := fs.String("qemu", "", "start qemu-system-arm for `MACHINE` (lm3s6965evb, mps2-an385...)")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, debugUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	newSession, err := debugTarget(fs.Args(), *native, *gdbAddr, *elf, *machine)
	if err != nil {
		fmt.Fprintln(os.Stderr, "polydbg debug:", err)
		if err == errUsage {
			fs.Usage()
			return 2
		}
		return 1
	}
	return cli.Run(cli.Config{In: os.Stdin, Out: os.Stdout, Echo: *echo, NewSession: newSession, Interrupts: withInterrupt})
}

var errUsage = fmt.Errorf("missing or conflicting arguments")

// debugTarget returns how to make a fresh session for what the flags name; the terminal
// debugger calls it again to run the program once more.
func debugTarget(args []string, native bool, gdbAddr, elf, machine string) (func() (*engine.Session, error), error) {
	remote := func(open func(ctx context.Context) (*gdbremote.Target, error)) func() (*engine.Session, error) {
		return func() (*engine.Session, error) {
			t, err := open(context.Background())
			if err != nil {
				return nil, err
			}
			return engine.NewSession(t), nil
		}
	}
	switch {
	case native && gdbAddr == "" && machine == "" && len(args) >= 1:
		return remote(func(ctx context.Context) (*gdbremote.Target, error) {
			return gdbremote.LaunchNative(ctx, args[0], args[1:], gdbremote.Config{})
		}), nil
	case gdbAddr != "" && !native && machine == "" && elf != "" && len(args) == 0:
		return remote(func(ctx context.Context) (*gdbremote.Target, error) {
			return gdbremote.Connect(ctx, gdbAddr, elf, gdbremote.Config{})
		}), nil
	case machine != "" && !native && gdbAddr == "" && len(args) == 1:
		return remote(func(ctx context.Context) (*gdbremote.Target, error) {
			return gdbremote.StartQEMUTarget(ctx, machine, args[0], gdbremote.Config{})
		}), nil
	case !native && gdbAddr == "" && machine == "" && len(args) == 1:
		prog, err := kite.CompileFile(args[0], nil)
		if err != nil {
			return nil, err
		}
		return func() (*engine.Session, error) {
			tg, err := kitevm.New(prog, kitevm.Options{})
			if err != nil {
				return nil, err
			}
			return engine.NewSession(tg), nil
		}, nil
	}
	return nil, errUsage
}

// withInterrupt pauses the running program on Ctrl-C instead of killing the debugger.
func withInterrupt(pause func()) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-ch:
				pause()
			case <-done:
				return
			}
		}
	}()
	return func() { signal.Stop(ch); close(done) }
}
