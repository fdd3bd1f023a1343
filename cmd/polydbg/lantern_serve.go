package main

// `polydbg lantern serve`: the debuglantern daemon.

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/internal/tarball"
	"github.com/polydbg/polydbg/protocol/lantern"
	"github.com/polydbg/polydbg/protocol/web"
)

// parseBytes parses a size: 1048576, 64KiB, 512MiB, 2GiB, 10MB...
func parseBytes(s string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1000}, {"MB", 1000 * 1000}, {"GB", 1000 * 1000 * 1000},
		{"K", 1 << 10}, {"M", 1 << 20}, {"G", 1 << 30}, {"B", 1}}
	mult := int64(1)
	num := s
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			mult, num = u.mult, strings.TrimSuffix(s, u.suffix)
			break
		}
	}
	n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("invalid size %q (e.g. 512MiB)", s)
	}
	return n * mult, nil
}

// lanternServe runs the daemon until ctx ends.
func lanternServe(ctx context.Context, args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("polydbg lantern serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:4444", "address to listen on (loopback unless --token-file or --insecure)")
	tokenFile := fs.String("token-file", "", "require AUTH with the token in this file")
	insecure := fs.Bool("insecure", false, "allow a non-loopback address without a token (anyone who can connect runs programs as you)")
	stateDir := fs.String("state-dir", "", "keep sessions in this directory across restarts")
	maxSessions := fs.Int("max-sessions", lantern.DefaultMaxSessions, "most sessions at once")
	maxBytes := fs.String("max-bytes", "512MiB", "most bytes all sessions may hold (uploads and unpacked bundles)")
	debugPorts := fs.String("debug-ports", lantern.DefaultDebugPorts, "ports gdbserver may listen on")
	stopGrace := fs.Duration("stop-grace", lantern.DefaultStopGrace, "how long STOP waits after SIGTERM before SIGKILL")
	sysrootDirs := fs.String("sysroot-dirs", strings.Join(tarball.DefaultSysrootDirs, ","), "directories SYSROOT collects")
	sysrootAll := fs.Bool("sysroot-all", false, "SYSROOT sends every file of those directories, not only shared libraries and debug files")
	authTimeout := fs.Duration("auth-timeout", lantern.DefaultAuthTimeout, "with --token-file: how long a connection has to send AUTH before it is closed")
	maxPending := fs.Int("max-pending", lantern.DefaultMaxPending, "with --token-file: most connections waiting to authenticate (a new one replaces the oldest)")
	maxConns := fs.Int("max-conns", lantern.DefaultMaxConns, "most connections served at once (with a token: authenticated ones)")
	webAddr := fs.String("web", "", "also serve a live web view of the programs' output on `ADDR` (127.0.0.1:PORT)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 0 {
		fmt.Fprintf(stderr, "polydbg lantern serve: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	fail := func(err error) int {
		fmt.Fprintln(stderr, "polydbg lantern serve:", err)
		return 2
	}
	cfg := lantern.Config{StateDir: *stateDir, MaxSessions: *maxSessions, StopGrace: *stopGrace, SysrootAll: *sysrootAll,
		AuthTimeout: *authTimeout, MaxPending: *maxPending, MaxConns: *maxConns}
	var err error
	if cfg.MaxBytes, err = parseBytes(*maxBytes); err != nil {
		return fail(err)
	}
	if cfg.DebugPortMin, cfg.DebugPortMax, err = lantern.ParsePortRange(*debugPorts); err != nil {
		return fail(err)
	}
	for _, d := range strings.Split(*sysrootDirs, ",") {
		if d = strings.TrimSpace(d); d != "" {
			cfg.SysrootDirs = append(cfg.SysrootDirs, d)
		}
	}
	if *tokenFile != "" {
		if cfg.Token, err = readToken(*tokenFile); err != nil {
			return fail(err)
		}
		if fi, err := os.Stat(*tokenFile); err == nil && fi.Mode().Perm()&0o077 != 0 {
			slog.Warn("lantern: the token file is readable by other users", "file", *tokenFile, "mode", fi.Mode().Perm())
		}
	}
	if err := lantern.CheckListen(*listen, cfg.Token != "", *insecure); err != nil {
		return fail(err)
	}
	if *insecure && cfg.Token == "" {
		slog.Warn("lantern: --insecure: anyone who can reach " + *listen + " can run programs as this user")
	}
	srv, err := lantern.NewServer(cfg)
	if err != nil {
		return fail(err)
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return fail(err)
	}
	fmt.Fprintf(stderr, "polydbg lantern: listening on %s\n", ln.Addr())
	feeds := &lanternFeeds{addr: ln.Addr().String(), token: cfg.Token}
	defer feeds.close()
	stopWeb, err := startWebWith(*webAddr, stderr, web.Options{Feeds: feeds})
	if err != nil {
		ln.Close()
		return fail(err)
	}
	defer stopWeb()
	if err := srv.Serve(ctx, ln); err != nil {
		return fail(err)
	}
	return 0
}
