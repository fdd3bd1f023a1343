package main

// `polydbg lantern`: the debuglantern daemon (`polydbg lantern serve`) and its client (every
// other verb). See docs/protocols/debuglantern.md.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/polydbg/polydbg/protocol/lantern"
)

func init() {
	register(&command{
		name:    "lantern",
		summary: "debuglantern: run uploaded programs remotely (serve) and drive them (push, logs, gdb...)",
		run: func(args []string) int {
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			return runLantern(ctx, args, os.Stdin, os.Stdout, os.Stderr)
		},
	})
}

const lanternUsage = `usage:
  polydbg lantern serve [--listen 127.0.0.1:4444] [--token-file F] [--insecure] [--state-dir D]
                        [--max-sessions 32] [--max-bytes 512MiB] [--debug-ports 5500-5699]
                        [--stop-grace 3s] [--sysroot-dirs /lib,/lib64,/usr/lib,/usr/lib/debug] [--sysroot-all]
  polydbg lantern [--addr host:4444] [--token-file F] VERB ...
verbs:
  push FILE|DIR [--exec PATH] [--args "..."] [--env K=V]... [--start] [--debug]
  ls | status ID | logs ID [-f] | start ID [--debug] | debug ID | stop ID | kill ID | rm ID
  args ID "ARG ..." | env ID [K=V | -K] | deps | sysroot -o DIR
  gdb ID [FILE] [--sysroot DIR] [-- GDB-ARGS...]
`

// runLantern runs `polydbg lantern ARGS`; ctx ends the daemon (or a follow).
func runLantern(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 && args[0] == "serve" {
		return lanternServe(ctx, args[1:], stderr)
	}
	fs := flag.NewFlagSet("polydbg lantern", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, lanternUsage) }
	addr := fs.String("addr", envOr("POLYDBG_LANTERN_ADDR", "127.0.0.1:4444"), "daemon address (or $POLYDBG_LANTERN_ADDR)")
	tokenFile := fs.String("token-file", os.Getenv("POLYDBG_LANTERN_TOKEN_FILE"), "file holding the daemon's token (or $POLYDBG_LANTERN_TOKEN_FILE)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	cl := &lanternCLI{addr: *addr, stdin: stdin, stdout: stdout, stderr: stderr, ctx: ctx}
	if *tokenFile != "" {
		tok, err := readToken(*tokenFile)
		if err != nil {
			fmt.Fprintln(stderr, "polydbg lantern:", err)
			return 2
		}
		cl.token = tok
	}
	code, err := cl.run(fs.Arg(0), fs.Args()[1:])
	if err != nil {
		var le *lantern.Error
		if errors.As(err, &le) {
			fmt.Fprintf(stderr, "polydbg lantern: %s: %s\n", le.Code, le.Message)
		} else {
			fmt.Fprintln(stderr, "polydbg lantern:", err)
		}
		if code == 0 {
			code = 1
		}
	}
	return code
}

func envOr(k, def string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return def
}

// readToken reads a token file: its content without surrounding white space.
func readToken(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("token file: %w", err)
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" || strings.ContainsAny(tok, " \t\r\n") {
		return "", fmt.Errorf("token file %s: the token must be one word", path)
	}
	return tok, nil
}
