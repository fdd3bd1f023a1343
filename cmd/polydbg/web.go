package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/polydbg/polydbg/console"
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/gdbcmd"
	"github.com/polydbg/polydbg/launch"
	"github.com/polydbg/polydbg/protocol/web"
)

func init() {
	register(&command{name: "web", summary: "a live web view of the sessions (and of a Kite file or cartridge given)", run: func(args []string) int {
		ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer cancel()
		return webMain(ctx, args, os.Stderr, nil)
	}})
}

const webUsage = `usage: polydbg web [--listen 127.0.0.1:7070] [--fps N] [FILE.kite | CARTRIDGE]
Serves one page per session. With a Kite file or a cartridge, starts it paused at its
first statement (Kite, with the profiler on) or running (a cartridge).`

// webFlag adds the --web flag of a long-running command.
func webFlag(fs *flag.FlagSet) *string {
	return fs.String("web", "", "also serve the live web view of this command's sessions on `ADDR` (127.0.0.1:PORT)")
}

// startWeb serves the web view of launch.Sessions on addr for a long-running command; the
// returned stop ends it. An empty addr serves nothing.
func startWeb(addr string, stderr io.Writer) (stop func(), err error) {
	return startWebWith(addr, stderr, web.Options{})
}

// startWebWith is startWeb with the server's options (a command that has feeds).
func startWebWith(addr string, stderr io.Writer, opts web.Options) (stop func(), err error) {
	if addr == "" {
		return func() {}, nil
	}
	r, err := web.Listen(addr, opts)
	if err != nil {
		return nil, fmt.Errorf("--web: %w", err)
	}
	fmt.Fprintf(stderr, "web view: %s\n", r.URL())
	return func() { r.Close() }, nil
}

// registeredWithArgs returns how the terminal debugger makes a fresh session of spec (again
// at each run): started through launch, saying what it waits for when that is slow, and
// listed in launch.Sessions under one entry that later runs replace; the program runs with
// the arguments, environment and redirections given to each (gdb's run ARGS < IN > OUT, set
// environment; nil env: the debugger's own).
func registeredWithArgs(spec launch.Spec, owner string) func(run gdbcmd.Run) (*engine.Session, error) {
	var entry *launch.Entry
	return func(run gdbcmd.Run) (*engine.Session, error) {
		spec := spec
		spec.Args, spec.Env = run.Args, run.Env
		if run.Program != "" { // what an exec ran
			spec.Program = run.Program
		}
		spec.StdinFile, spec.StdoutFile, spec.StdoutAppend = run.Stdin, run.Stdout, run.Append
		done := notifySlow(os.Stderr, waitingFor(spec))
		d, err := launch.Start(context.Background(), spec)
		done(err == nil)
		if err != nil {
			return nil, err
		}
		if entry == nil {
			entry = launch.Sessions.Add(d, filepath.Base(spec.Program), owner)
		} else {
			launch.Sessions.Replace(entry.ID, d)
		}
		return d.Session, nil
	}
}

// webMain runs `polydbg web` until ctx ends; ready, when set, gets the server once it
// listens (tests).
func webMain(ctx context.Context, args []string, stderr io.Writer, ready func(*web.Running)) int {
	fs := flag.NewFlagSet("web", flag.ContinueOnError)
	fs.SetOutput(stderr)
	listen := fs.String("listen", "127.0.0.1:7070", "serve on `ADDR`; beyond loopback pages are read-only unless opened with the printed token")
	fps := fs.Int("fps", console.DefaultFPS, "a cartridge's frames per second")
	fs.Usage = func() {
		fmt.Fprintln(stderr, webUsage)
		fs.PrintDefaults()
	}
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return 2
	}
	if len(pos) > 1 {
		fs.Usage()
		return 2
	}
	if len(pos) == 1 {
		d, err := webLaunch(ctx, pos[0], *fps)
		if err != nil {
			fmt.Fprintln(stderr, "polydbg web:", err)
			return 1
		}
		defer d.Close()
	}
	r, err := web.Listen(*listen, web.Options{})
	if err != nil {
		fmt.Fprintln(stderr, "polydbg web:", err)
		return 1
	}
	defer r.Close()
	fmt.Fprintf(stderr, "web view: %s\n", r.URL())
	if ready != nil {
		ready(r)
	}
	<-ctx.Done()
	return 0
}

// webLaunch starts what the command line names and registers it: a Kite program stops at
// its first statement with the profiler on, a cartridge runs.
func webLaunch(ctx context.Context, path string, fps int) (*launch.Debuggee, error) {
	spec := launch.Spec{Program: path, Profile: true, Console: console.Options{FPS: fps}}
	d, err := launch.Start(ctx, spec)
	if err != nil {
		return nil, err
	}
	e := launch.Sessions.Add(d, filepath.Base(path), "web")
	go func() {
		<-ctx.Done()
		launch.Sessions.Remove(e.ID)
	}()
	if err := d.Start(d.Console == nil); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}
