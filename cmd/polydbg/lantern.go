package main

// `polydbg lantern`: the debuglantern daemon (`polydbg lantern serve`) and its client (every
// other verb). See docs/protocols/debuglantern.md.

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"debug/elf"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

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
	sysrootDirs := fs.String("sysroot-dirs", strings.Join(lantern.DefaultSysrootDirs, ","), "directories SYSROOT collects")
	sysrootAll := fs.Bool("sysroot-all", false, "SYSROOT sends every file of those directories, not only shared libraries and debug files")
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
	cfg := lantern.Config{StateDir: *stateDir, MaxSessions: *maxSessions, StopGrace: *stopGrace, SysrootAll: *sysrootAll}
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
	if err := srv.Serve(ctx, ln); err != nil {
		return fail(err)
	}
	return 0
}

// lanternCLI is the client side of `polydbg lantern`.
type lanternCLI struct {
	ctx            context.Context
	addr, token    string
	stdin          io.Reader
	stdout, stderr io.Writer
}

func (l *lanternCLI) dial() (*lantern.Client, error) {
	return lantern.Dial(l.addr, l.token, 10*time.Second)
}

// verbFlags parses flags that may come before or after the positional arguments.
func verbFlags(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func (l *lanternCLI) run(verb string, args []string) (int, error) {
	fs := flag.NewFlagSet("polydbg lantern "+verb, flag.ContinueOnError)
	fs.SetOutput(l.stderr)
	one := func(pos []string) (string, error) {
		if len(pos) != 1 {
			return "", fmt.Errorf("usage: polydbg lantern %s ID", verb)
		}
		return pos[0], nil
	}
	switch verb {
	case "push":
		return l.push(fs, args)
	case "ls", "list":
		pos, err := verbFlags(fs, args)
		if err != nil || len(pos) != 0 {
			return 2, err
		}
		return l.ls()
	case "status", "stop", "kill", "rm", "delete", "debug":
		pos, err := verbFlags(fs, args)
		if err != nil {
			return 2, err
		}
		id, err := one(pos)
		if err != nil {
			return 2, err
		}
		wire := map[string]string{"status": "STATUS", "stop": "STOP", "kill": "KILL", "rm": "DELETE", "delete": "DELETE", "debug": "DEBUG"}[verb]
		return l.simple(wire + " " + id)
	case "start":
		debug := fs.Bool("debug", false, "start under gdbserver")
		pos, err := verbFlags(fs, args)
		if err != nil {
			return 2, err
		}
		id, err := one(pos)
		if err != nil {
			return 2, err
		}
		line := "START " + id
		if *debug {
			line += " --debug"
		}
		return l.simple(line)
	case "args":
		if len(args) < 1 {
			return 2, errors.New(`usage: polydbg lantern args ID "ARG ..."`)
		}
		return l.simple("ARGS " + args[0] + " " + strings.Join(args[1:], " "))
	case "env":
		return l.env(args)
	case "logs":
		follow := fs.Bool("f", false, "follow the output until the program ends")
		pos, err := verbFlags(fs, args)
		if err != nil {
			return 2, err
		}
		id, err := one(pos)
		if err != nil {
			return 2, err
		}
		return l.logs(id, *follow)
	case "deps":
		return l.deps()
	case "sysroot":
		out := fs.String("o", "", "directory to unpack the sysroot into")
		if _, err := verbFlags(fs, args); err != nil {
			return 2, err
		}
		if *out == "" {
			return 2, errors.New("usage: polydbg lantern sysroot -o DIR")
		}
		return l.sysroot(*out)
	case "gdb":
		return l.gdb(fs, args)
	}
	fmt.Fprint(l.stderr, lanternUsage)
	return 2, fmt.Errorf("unknown verb %q", verb)
}

// simple sends one command and prints its JSON answer.
func (l *lanternCLI) simple(line string) (int, error) {
	c, err := l.dial()
	if err != nil {
		return 1, err
	}
	defer c.Close()
	raw, err := c.Do(line)
	if err != nil {
		return 1, err
	}
	fmt.Fprintf(l.stdout, "%s\n", raw)
	return 0, nil
}

func (l *lanternCLI) push(fs *flag.FlagSet, args []string) (int, error) {
	execPath := fs.String("exec", "", "bundle (directory): the executable, relative to the directory")
	progArgs := fs.String("args", "", "arguments of the program")
	var env multiFlag
	fs.Var(&env, "env", "K=V environment variable of the program (repeatable)")
	start := fs.Bool("start", false, "start the program after the upload")
	debug := fs.Bool("debug", false, "start it under gdbserver (implies --start)")
	pos, err := verbFlags(fs, args)
	if err != nil {
		return 2, err
	}
	if len(pos) != 1 {
		return 2, errors.New(`usage: polydbg lantern push FILE|DIR [--exec PATH] [--args "..."] [--env K=V]... [--start] [--debug]`)
	}
	path := pos[0]
	fi, err := os.Stat(path)
	if err != nil {
		return 1, err
	}
	var payload io.Reader
	var size int64
	if fi.IsDir() {
		if *execPath == "" {
			return 2, errors.New("a directory is sent as a bundle: say which file runs with --exec PATH")
		}
		var buf bytes.Buffer
		if err := packDir(&buf, path); err != nil {
			return 1, err
		}
		payload, size = &buf, int64(buf.Len())
	} else {
		if *execPath != "" {
			return 2, errors.New("--exec is for directories (bundles)")
		}
		f, err := os.Open(path)
		if err != nil {
			return 1, err
		}
		defer f.Close()
		payload, size = f, fi.Size()
	}
	c, err := l.dial()
	if err != nil {
		return 1, err
	}
	defer c.Close()
	id, err := c.Upload(payload, size, filepath.ToSlash(*execPath))
	if err != nil {
		return 1, err
	}
	if *progArgs != "" {
		if _, err := c.Do("ARGS " + id + " " + *progArgs); err != nil {
			return 1, err
		}
	}
	for _, kv := range env {
		if _, err := c.Do("ENV " + id + " " + kv); err != nil {
			return 1, err
		}
	}
	if !*start && !*debug {
		fmt.Fprintln(l.stdout, id)
		return 0, nil
	}
	line := "START " + id
	if *debug {
		line += " --debug"
	}
	s, err := c.Session(line)
	if err != nil {
		return 1, err
	}
	fmt.Fprintln(l.stdout, id)
	if s.DebugPort != nil {
		host, _, _ := net.SplitHostPort(l.addr)
		fmt.Fprintf(l.stderr, "gdbserver listens on %s; run: polydbg lantern gdb %s %s\n", net.JoinHostPort(host, strconv.Itoa(*s.DebugPort)), id, path)
	}
	return 0, nil
}

// packDir writes dir as a tar.gz whose entries are relative to dir: regular files,
// directories, and symbolic links as they are.
func packDir(w io.Writer, dir string) error {
	zw := gzip.NewWriter(w)
	tw := tar.NewWriter(zw)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil || rel == "." {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		link := ""
		if fi.Mode()&fs.ModeSymlink != 0 {
			if link, err = os.Readlink(p); err != nil {
				return err
			}
		} else if !fi.Mode().IsRegular() && !fi.IsDir() {
			return nil // sockets, devices...: not part of a program
		}
		hdr, err := tar.FileInfoHeader(fi, link)
		if err != nil {
			return err
		}
		hdr.Name = filepath.ToSlash(rel)
		if fi.IsDir() {
			hdr.Name += "/"
		}
		hdr.Uname, hdr.Gname, hdr.Uid, hdr.Gid = "", "", 0, 0
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if fi.Mode().IsRegular() {
			f, err := os.Open(p)
			if err != nil {
				return err
			}
			defer f.Close()
			if _, err := io.Copy(tw, f); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return zw.Close()
}

func (l *lanternCLI) ls() (int, error) {
	c, err := l.dial()
	if err != nil {
		return 1, err
	}
	defer c.Close()
	var list []lantern.Session
	if err := c.DoInto("LIST", &list); err != nil {
		return 1, err
	}
	tw := tabwriter.NewWriter(l.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tPID\tDEBUG\tEXIT\tPROGRAM\tARGS")
	for _, s := range list {
		prog := "(binary)"
		if s.Bundle {
			prog = s.ExecPath
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.ID, s.State, intOrDash(s.PID), intOrDash(s.DebugPort), exitText(s), prog, s.Args)
	}
	tw.Flush()
	return 0, nil
}

func intOrDash(p *int) string {
	if p == nil {
		return "-"
	}
	return strconv.Itoa(*p)
}

func exitText(s lantern.Session) string {
	switch {
	case s.Signal != "":
		return s.Signal
	case s.ExitCode != nil:
		return strconv.Itoa(*s.ExitCode)
	case s.Ended != "":
		return s.Ended
	}
	return "-"
}

func (l *lanternCLI) env(args []string) (int, error) {
	if len(args) < 1 || len(args) > 2 {
		return 2, errors.New("usage: polydbg lantern env ID [K=V | -K]")
	}
	id := args[0]
	c, err := l.dial()
	if err != nil {
		return 1, err
	}
	defer c.Close()
	if len(args) == 2 {
		a := args[1]
		line := "ENV " + id + " " + a
		if strings.HasPrefix(a, "-") {
			line = "ENVDEL " + id + " " + a[1:]
		} else if !strings.Contains(a, "=") {
			return 2, fmt.Errorf("%q: want K=V to set or -K to remove", a)
		}
		if _, err := c.Do(line); err != nil {
			return 1, err
		}
	}
	var env map[string]string
	if err := c.DoInto("ENVLIST "+id, &env); err != nil {
		return 1, err
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(l.stdout, "%s=%s\n", k, env[k])
	}
	return 0, nil
}

// logs prints a session's output; with follow it goes on (through OUTPUT offsets) until
// the program has ended and everything it wrote was printed, or ctx ends.
func (l *lanternCLI) logs(id string, follow bool) (int, error) {
	c, err := l.dial()
	if err != nil {
		return 1, err
	}
	defer c.Close()
	var off int64
	for {
		o, err := c.Output(id, off)
		if err != nil {
			return 1, err
		}
		if o.Trimmed {
			fmt.Fprintf(l.stderr, "[polydbg lantern: %d bytes of output were dropped before offset %d]\n", o.Offset-off, o.Offset)
		}
		io.WriteString(l.stdout, o.Output)
		off = o.Next
		if !follow {
			return 0, nil
		}
		if o.Next >= o.Total {
			s, err := c.Session("STATUS " + id)
			if err != nil {
				return 1, err
			}
			if s.State != lantern.StateRunning && s.State != lantern.StateDebugging {
				// One last read: output written just before the end.
				if o, err = c.Output(id, off); err == nil {
					io.WriteString(l.stdout, o.Output)
				}
				return 0, nil
			}
			select {
			case <-l.ctx.Done():
				return 0, nil
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}

func (l *lanternCLI) deps() (int, error) {
	c, err := l.dial()
	if err != nil {
		return 1, err
	}
	defer c.Close()
	var d lantern.Deps
	if err := c.DoInto("DEPS", &d); err != nil {
		return 1, err
	}
	tw := tabwriter.NewWriter(l.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tAVAILABLE\tREQUIRED\tDESCRIPTION")
	for _, x := range d.Deps {
		fmt.Fprintf(tw, "%s\t%v\t%v\t%s\n", x.Name, x.Available, x.Required, x.Description)
	}
	tw.Flush()
	if !d.AllSatisfied {
		return 1, errors.New("a required dependency is missing on the daemon's host")
	}
	return 0, nil
}

// sysroot fetches the daemon's sysroot and unpacks it into dir.
func (l *lanternCLI) sysroot(dir string) (int, error) {
	if err := fetchSysroot(l, dir); err != nil {
		return 1, err
	}
	fmt.Fprintln(l.stdout, dir)
	return 0, nil
}

func fetchSysroot(l *lanternCLI, dir string) error {
	c, err := l.dial()
	if err != nil {
		return err
	}
	defer c.Close()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp("", "polydbg-sysroot-*.tar.gz")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	defer tmp.Close()
	if _, err := c.Sysroot(tmp); err != nil {
		return err
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		return err
	}
	_, err = lantern.ExtractTarGz(tmp, dir, lantern.ExtractLimits{})
	if err != nil {
		return fmt.Errorf("unpacking the sysroot into %s (it should be empty): %w", dir, err)
	}
	return nil
}

// gdb runs gdb (gdb-multiarch for a binary of another architecture) connected to the
// session's gdbserver, with the daemon's libraries as its sysroot.
func (l *lanternCLI) gdb(fs *flag.FlagSet, args []string) (int, error) {
	sysroot := fs.String("sysroot", "", "use this sysroot instead of fetching the daemon's (cached per daemon)")
	refresh := fs.Bool("refresh-sysroot", false, "fetch the daemon's sysroot again")
	var extra []string
	for i, a := range args {
		if a == "--" {
			args, extra = args[:i], args[i+1:]
			break
		}
	}
	pos, err := verbFlags(fs, args)
	if err != nil {
		return 2, err
	}
	if len(pos) < 1 || len(pos) > 2 {
		return 2, errors.New("usage: polydbg lantern gdb ID [FILE] [--sysroot DIR] [-- GDB-ARGS...]")
	}
	id, file := pos[0], ""
	if len(pos) == 2 {
		file = pos[1]
	}
	c, err := l.dial()
	if err != nil {
		return 1, err
	}
	s, err := c.Session("STATUS " + id)
	if err == nil && s.DebugPort == nil {
		if s.State != lantern.StateRunning {
			err = fmt.Errorf("session %s is %s: start it with `polydbg lantern start %s --debug`", id, s.State, id)
		} else {
			s, err = c.Session("DEBUG " + id) // attach gdbserver to the running program
		}
	}
	c.Close()
	if err != nil {
		return 1, err
	}
	if *sysroot == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			cache = os.TempDir()
		}
		*sysroot = filepath.Join(cache, "polydbg", "lantern-sysroot", strings.NewReplacer(":", "_", "/", "_").Replace(l.addr))
		if *refresh {
			os.RemoveAll(*sysroot)
		}
		if ents, err := os.ReadDir(*sysroot); err != nil || len(ents) == 0 {
			fmt.Fprintf(l.stderr, "polydbg lantern: fetching the sysroot into %s\n", *sysroot)
			if err := fetchSysroot(l, *sysroot); err != nil {
				os.RemoveAll(*sysroot)
				return 1, err
			}
		}
	}
	gdb := "gdb"
	if file != "" && !nativeELF(file) {
		gdb = "gdb-multiarch"
	}
	if _, err := exec.LookPath(gdb); err != nil {
		return 1, fmt.Errorf("%s is not installed", gdb)
	}
	host, _, _ := net.SplitHostPort(l.addr)
	gargs := []string{"-q", "-ex", "set sysroot " + *sysroot, "-ex", "target remote " + net.JoinHostPort(host, strconv.Itoa(*s.DebugPort))}
	gargs = append(gargs, extra...)
	if file != "" {
		gargs = append(gargs, file)
	}
	cmd := exec.CommandContext(l.ctx, gdb, gargs...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = l.stdin, l.stdout, l.stderr
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode(), nil
		}
		return 1, err
	}
	return 0, nil
}

// nativeELF reports whether file is an ELF for this host's architecture (or not an ELF at
// all, in which case plain gdb will say so).
func nativeELF(file string) bool {
	f, err := elf.Open(file)
	if err != nil {
		return true
	}
	defer f.Close()
	host := map[string]elf.Machine{"amd64": elf.EM_X86_64, "386": elf.EM_386, "arm64": elf.EM_AARCH64, "arm": elf.EM_ARM,
		"riscv64": elf.EM_RISCV, "ppc64le": elf.EM_PPC64, "s390x": elf.EM_S390, "loong64": elf.EM_LOONGARCH}[runtime.GOARCH]
	return host == 0 || f.Machine == host
}
