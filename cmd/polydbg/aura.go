package main

// `polydbg aura run FILE`: the Aura debug protocol (Sentinel). See docs/protocols/aura.md.

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/polydbg/polydbg/protocol/aura"
)

func init() {
	register(&command{
		name:    "aura",
		summary: "Aura debug protocol: run a Kite or native program for Sentinel (aura run FILE)",
		run: func(args []string) int {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			in, out := io.Reader(os.Stdin), io.Writer(os.Stdout) // a plain run hands stdin to a native program as it is
			if _, on := os.LookupEnv("AURA_DEBUG_PROTOCOL"); on {
				out = protocolStdout() // commands only on stdin, which stays blocking
			}
			return aura.Main(ctx, args, os.LookupEnv, in, out, os.Stderr)
		},
	})
}
