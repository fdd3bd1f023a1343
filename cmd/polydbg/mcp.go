package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/polydbg/polydbg/internal/wire"
	"github.com/polydbg/polydbg/protocol/mcp"
	"github.com/polydbg/polydbg/protocol/web"
)

func init() {
	register(&command{name: "mcp", summary: "serve debug sessions to AI agents over the Model Context Protocol", run: runMCP})
}

func runMCP(args []string) int {
	fs := flag.NewFlagSet("polydbg mcp", flag.ContinueOnError)
	addr := fs.String("http", "", "serve streamable HTTP on `HOST:PORT` (at /mcp) instead of stdio; loopback unless --token is given")
	token := fs.String("token", os.Getenv("POLYDBG_MCP_TOKEN"), "bearer `TOKEN` HTTP clients must send (default $POLYDBG_MCP_TOKEN); required beyond loopback")
	allowExec := fs.Bool("allow-exec", false, "let agents start native programs and firmware and attach to GDB stubs")
	allowWrite := fs.Bool("allow-write", false, "let agents write memory and evaluate with side effects on native and firmware targets")
	noRedact := fs.Bool("no-redact", false, "send secrets (secret-looking environment values, key-shaped strings) unredacted")
	timeout := fs.Duration("timeout", 60*time.Second, "bound on every tool call")
	webAddr := webFlag(fs)
	webControl := fs.Bool("web-control", false, "let the --web pages control the agents' sessions (by default they are a read-only mirror)")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: polydbg mcp [--http HOST:PORT [--token TOKEN]] [--allow-exec] [--allow-write] [--no-redact] [--web ADDR [--web-control]]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	// The web view watches the agents' sessions (launch.Sessions): a read-only mirror
	// unless --web-control, so that a person can follow an agent without disturbing it.
	stopWeb, err := startWebWith(*webAddr, os.Stderr, web.Options{ReadOnly: !*webControl})
	if err != nil {
		fmt.Fprintln(os.Stderr, "polydbg mcp:", err)
		return 1
	}
	defer stopWeb()
	srv := mcp.New(mcp.Options{AllowExec: *allowExec, AllowWrite: *allowWrite, NoRedact: *noRedact,
		CallTimeout: *timeout, Version: "dev", Logger: slog.Default()})
	defer srv.CloseAll()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *addr == "" {
		out := protocolStdout().(io.WriteCloser) // closed on SIGTERM: a pending write returns
		if err := srv.ServeStdio(ctx, os.Stdin, out); err != nil {
			fmt.Fprintln(os.Stderr, "polydbg mcp:", err)
			return 1
		}
		return 0
	}
	host, _, err := net.SplitHostPort(*addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "polydbg mcp: --http:", err)
		return 2
	}
	if !wire.IsLoopbackHost(host) && *token == "" {
		fmt.Fprintf(os.Stderr, "polydbg mcp: refusing to listen on %s without --token: anyone who reaches it could run code here\n", *addr)
		return 2
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "polydbg mcp:", err)
		return 1
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", srv.HTTPHandler(*token))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(os.Stderr, "polydbg mcp: listening on http://%s/mcp\n", ln.Addr())
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = hs.Shutdown(sctx)
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(os.Stderr, "polydbg mcp:", err)
		return 1
	}
	return 0
}
