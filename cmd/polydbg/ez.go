package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/polydbg/polydbg/protocol/ez"
)

func init() {
	register(&command{name: "ez", summary: "EZ debugger protocol on stdin/stdout for a Kite program", run: runEZ("ez")})
	register(&command{name: "debugserver", summary: "the EZ protocol under the name the EZ IDE calls (same as ez)", run: runEZ("debugserver")})
}

// runEZ serves the EZ protocol: JSON lines on stdin/stdout, logs on stderr. The end of
// stdin ends the session (the program is terminated) and the process exits 0.
func runEZ(name string) func(args []string) int {
	return func(args []string) int {
		fs := flag.NewFlagSet(name, flag.ContinueOnError)
		fs.SetOutput(os.Stderr)
		wd := fs.String("wd", "", "directory relative paths resolve against when initialize gives no workingDir")
		fs.Usage = func() {
			fmt.Fprintf(os.Stderr, "usage: polydbg %s [-wd DIR] [FILE.kite]\n\n", name)
			fmt.Fprintln(os.Stderr, "Speaks the EZ debugger protocol (newline-delimited JSON) on stdin/stdout.")
			fmt.Fprintln(os.Stderr, "FILE is the program to debug when initialize names none. See docs/protocols/ez.md.")
			fs.PrintDefaults()
		}
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				return 0
			}
			return 2
		}
		if fs.NArg() > 1 {
			fs.Usage()
			return 2
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		out := protocolStdout()
		err := ez.Serve(ctx, os.Stdin, out, ez.Options{File: fs.Arg(0), WorkingDir: *wd})
		if err != nil && ctx.Err() == nil {
			slog.Error("ez", "err", err)
			return 1
		}
		return 0
	}
}
