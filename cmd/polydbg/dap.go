package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/polydbg/polydbg/internal/wire"
	"github.com/polydbg/polydbg/protocol/dap"
	"github.com/polydbg/polydbg/protocol/lantern"
)

func init() {
	register(&command{name: "dap", summary: "serve the Debug Adapter Protocol on stdin/stdout, or on --listen 127.0.0.1:PORT (VS Code, nvim-dap, Helix...)",
		run: func(args []string) int {
			out := protocolStdout() // protocol/dap gathers a burst itself
			return runDAP(context.Background(), args, os.Stdin, out, os.Stderr)
		}})
}

// runDAP serves DAP on the standard streams, or on TCP connections (each its own session)
// until interrupted.
func runDAP(ctx context.Context, args []string, in io.Reader, out, stderr io.Writer) int {
	fs := flag.NewFlagSet("dap", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "", "serve on this TCP address instead of stdin/stdout (loopback unless --token-file or --insecure)")
	tokenFile := fs.String("token-file", "", "require this file's token as \"token\" in every launch/attach configuration")
	insecure := fs.Bool("insecure", false, "allow a non-loopback address without a token (anyone who can connect runs programs as you)")
	webAddr := webFlag(fs)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	stopWeb, err := startWeb(*webAddr, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "dap:", err)
		return 1
	}
	defer stopWeb()
	opts := dap.Options{}
	if *tokenFile != "" {
		tok, err := readToken(*tokenFile)
		if err != nil {
			fmt.Fprintln(stderr, "dap:", err)
			return 2
		}
		opts.Token = tok
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *listen == "" {
		if err := dap.Serve(ctx, in, out, opts); err != nil {
			fmt.Fprintln(stderr, "dap:", err)
			return 1
		}
		return 0
	}
	if err := lantern.CheckListen(*listen, opts.Token != "", *insecure); err != nil {
		fmt.Fprintln(stderr, "dap:", err)
		return 2
	}
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintln(stderr, "dap:", err)
		return 1
	}
	fmt.Fprintf(stderr, "dap: serving on %s\n", l.Addr())
	go func() { <-ctx.Done(); l.Close() }()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := l.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return 0
			}
			fmt.Fprintln(stderr, "dap:", err)
			return 1
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			stopClose := context.AfterFunc(ctx, func() { c.Close() })
			defer stopClose()
			if err := dap.Serve(ctx, c, tryWriter(c), opts); err != nil {
				fmt.Fprintln(stderr, "dap:", err)
			}
			wire.CloseGently(c) // a client told "unauthorized" reads it before the end
		}()
	}
}

// tryWriter is c as a wire.TryWriter when it is a socket, so that an answer leaves on the
// goroutine that made it when the socket has room, as on stdio; else c as it is.
func tryWriter(c net.Conn) io.Writer {
	if sc, ok := c.(syscall.Conn); ok {
		if rc, err := sc.SyscallConn(); err == nil {
			return rawWriter{rc: rc}
		}
	}
	return c
}
