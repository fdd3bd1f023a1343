package main

import (
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/kite"
	"github.com/polydbg/polydbg/protocol/cli"
	"github.com/polydbg/polydbg/target/kitevm"
)

func init() {
	register(&command{name: "debug", summary: "debug a program in the terminal, with gdb's commands", run: debugCmd})
}

// sessionMakers lets other targets (gdb remote, native, QEMU) plug into `debug` by flag.
var debugTargets []func(fs *flag.FlagSet) func(args []string) (func() (*engine.Session, error), bool, error)

func debugCmd(args []string) int {
	fs := flag.NewFlagSet("debug", flag.ContinueOnError)
	echo := fs.Bool("echo", false, "echo each command (for piped scripts)")
	var extra []func(args []string) (func() (*engine.Session, error), bool, error)
	for _, t := range debugTargets {
		extra = append(extra, t(fs))
	}
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: polydbg debug [flags] FILE.kite")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	var newSession func() (*engine.Session, error)
	for _, pick := range extra {
		mk, ok, err := pick(fs.Args())
		if err != nil {
			fmt.Fprintln(os.Stderr, "polydbg debug:", err)
			return 2
		}
		if ok {
			newSession = mk
			break
		}
	}
	if newSession == nil {
		if fs.NArg() < 1 {
			fs.Usage()
			return 2
		}
		file := fs.Arg(0)
		prog, err := kite.CompileFile(file, nil)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		newSession = func() (*engine.Session, error) {
			tg, err := kitevm.New(prog, kitevm.Options{})
			if err != nil {
				return nil, err
			}
			return engine.NewSession(tg), nil
		}
	}
	return cli.Run(cli.Config{In: os.Stdin, Out: os.Stdout, Echo: *echo, NewSession: newSession, Interrupts: withInterrupt})
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
