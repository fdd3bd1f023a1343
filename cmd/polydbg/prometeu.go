package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/polydbg/polydbg/console"
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/launch"
	"github.com/polydbg/polydbg/protocol/prometeu"
)

func init() {
	register(&command{
		name:    "prometeu",
		summary: "run Prometeu cartridges (fantasy console) with an optional DevTools server",
		run:     func(args []string) int { return prometeuMain(args, os.Stdout, os.Stderr) },
	})
}

const prometeuUsage = `usage:
  polydbg prometeu run CART [--frames N] [--fps N] [--seed N] [--screenshot out.png]
                            [--devtools ADDR [--wait]] [--telemetry N] [--web ADDR]
  polydbg prometeu build CART [-o out.kbc]
  polydbg prometeu check CART
`

func prometeuMain(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprint(stderr, prometeuUsage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	switch args[0] {
	case "run":
		return prometeuRun(args[1:], stdout, stderr)
	case "build":
		return prometeuBuild(args[1:], stdout, stderr)
	case "check":
		return prometeuCheck(args[1:], stdout, stderr)
	}
	fmt.Fprintf(stderr, "polydbg prometeu: unknown command %q\n%s", args[0], prometeuUsage)
	return 2
}

func prometeuRun(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("prometeu run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	frames := fs.Int64("frames", 0, "stop after `N` frames (0: run until the cartridge ends)")
	fps := fs.Int("fps", console.DefaultFPS, "frames per second (0: unpaced)")
	seed := fs.Uint64("seed", 1, "seed of rnd()")
	shot := fs.String("screenshot", "", "write the last frame to this PNG `file` when the run ends")
	devtools := fs.String("devtools", "", "serve the DevTools protocol on `host:port` (loopback unless --token-file or --allow-remote)")
	tokenFile := fs.String("token-file", "", "clients must answer the handshake with the token in this `file` (required beyond loopback)")
	wait := fs.Bool("wait", false, "with --devtools: start paused until a client says start")
	remote := fs.Bool("allow-remote", false, "allow --devtools on a non-loopback address without a token (no authentication!)")
	telemetry := fs.Int("telemetry", console.DefaultTelemetry, "frames between telemetry events (0: none)")
	webAddr := webFlag(fs)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) != 1 {
		fmt.Fprint(stderr, "polydbg prometeu run: want one cartridge directory\n"+prometeuUsage)
		return 2
	}
	if *fps < 0 || *frames < 0 || *telemetry < 0 {
		fmt.Fprintln(stderr, "polydbg prometeu run: --fps, --frames and --telemetry must not be negative")
		return 2
	}
	if *wait && *devtools == "" {
		fmt.Fprintln(stderr, "polydbg prometeu run: --wait needs --devtools")
		return 2
	}
	var addr, token string
	if *tokenFile != "" {
		if token, err = readToken(*tokenFile); err != nil {
			fmt.Fprintln(stderr, "polydbg prometeu run:", err)
			return 2
		}
	}
	if *devtools != "" {
		if addr, err = devtoolsAddr(*devtools, *remote || token != ""); err != nil {
			fmt.Fprintln(stderr, "polydbg prometeu run:", err)
			return 2
		}
		if *remote && token == "" && !isLoopback(addr) {
			fmt.Fprintln(stderr, "polydbg prometeu run: warning: DevTools on", addr, "without a token: anyone who can connect controls the console")
		}
	}
	cart, err := console.Load(pos[0])
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	tel := *telemetry
	if tel == 0 {
		tel = -1
	}
	copts := console.Options{FPS: *fps, Frames: *frames, Seed: *seed, Telemetry: tel}
	con, err := console.New(cart, copts)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	sess := engine.NewSession(con.Target())
	defer sess.Close()
	entry := launch.Sessions.Add(&launch.Debuggee{Session: sess, Console: con, Spec: launch.Spec{Kind: launch.Cartridge, Program: pos[0], Console: copts}}, filepath.Base(cart.Dir), "prometeu")
	defer launch.Sessions.Remove(entry.ID)
	stopWeb, err := startWeb(*webAddr, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "polydbg prometeu run:", err)
		return 1
	}
	defer stopWeb()

	var srv *prometeu.Server
	var listener net.Listener
	if *devtools != "" {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			fmt.Fprintln(stderr, "polydbg prometeu run:", err)
			return 1
		}
		srv = prometeu.New(sess, con, prometeu.Options{Waiting: *wait, AppMode: "Debug", Token: token})
		defer ln.Close()
		listener = ln
	} else {
		con.SetEventHandler(func(e console.Event) {
			switch e.Kind {
			case console.EventLog:
				fmt.Fprintf(stderr, "[%s] %s\n", e.Level, e.Msg)
			case console.EventCert:
				fmt.Fprintf(stderr, "cert: frame %d: %s used %d, limit %d\n", e.FrameIndex, e.Rule, e.Used, e.Limit)
			}
		})
	}
	sub := sess.Subscribe()
	if srv != nil {
		if err := srv.Start(*wait); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		go srv.Serve(listener)
		fmt.Fprintf(stderr, "prometeu: DevTools listening on %s\n", listener.Addr())
	} else if err := sess.Start(false); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sig)
	code := 0
loop:
	for {
		select {
		case e, ok := <-sub.Events():
			if !ok {
				break loop
			}
			switch e.Kind {
			case engine.EventOutput:
				if e.Category == "stdout" {
					io.WriteString(stdout, e.Text)
				} else {
					io.WriteString(stderr, e.Text)
				}
			case engine.EventStopped:
				// Without a debugger an uncaught error stops nobody: go on to the exit.
				if srv == nil && e.Stop.Reason == engine.ReasonException {
					_ = sess.Continue()
				}
			case engine.EventExited:
				code = e.ExitCode
			case engine.EventTerminated:
				code = 130
			}
		case <-sig:
			_ = sess.Terminate()
		}
	}
	if srv != nil {
		srv.Wait()
		srv.Close(2 * time.Second)
	}
	if *shot != "" {
		if err := os.WriteFile(*shot, con.Screen().PNG(), 0o644); err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
	}
	return code
}

// devtoolsAddr defaults the host to the loopback address and refuses other hosts unless
// allowed.
func devtoolsAddr(addr string, allowRemote bool) (string, error) {
	if !strings.Contains(addr, ":") {
		addr = ":" + addr
	}
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("--devtools %q: %w", addr, err)
	}
	if host == "" || host == "localhost" {
		host = "127.0.0.1"
	}
	ip := net.ParseIP(host)
	if !allowRemote && (ip == nil || !ip.IsLoopback()) {
		return "", fmt.Errorf("--devtools %s is not a loopback address; give --token-file (clients then answer the handshake with the token) or --allow-remote (anyone who can connect controls the console)", host)
	}
	return net.JoinHostPort(host, port), nil
}

func isLoopback(addr string) bool {
	host, _, _ := net.SplitHostPort(addr)
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func prometeuBuild(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("prometeu build", flag.ContinueOnError)
	fs.SetOutput(stderr)
	out := fs.String("o", "", "output `file` (default: the entrypoint with extension .kbc)")
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) != 1 {
		fmt.Fprint(stderr, "polydbg prometeu build: want one cartridge directory\n"+prometeuUsage)
		return 2
	}
	file, err := console.Build(pos[0], *out)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	fmt.Fprintf(stdout, "wrote %s (name it as the manifest's entrypoint to run it)\n", file)
	return 0
}

func prometeuCheck(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprint(stderr, "polydbg prometeu check: want one cartridge directory\n"+prometeuUsage)
		return 2
	}
	cart, err := console.Load(args[0])
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	m := cart.Manifest
	l := m.Limits
	fmt.Fprintf(stdout, "%s %s (app_id %d, %s): ok, %d instructions\n", m.Title, m.AppVersion, m.AppID, m.AppMode, len(cart.Program.Code))
	fmt.Fprintf(stdout, "limits: %s %d, %s %d, %s %d, %s %d\n", console.RuleCycles, l.CyclesPerFrame,
		console.RuleSyscalls, l.SyscallsPerFrame, console.RuleHeap, l.HeapValues, console.RuleLogs, l.LogsPerFrame)
	return 0
}
