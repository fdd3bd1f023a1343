// Package aura is the Aura debug protocol (Sentinel's protocol for the Aura runtime) as a
// front end of polydbg's engine: `polydbg aura run FILE` runs a Kite program in the Dev-VM,
// or a native program under supervision (backend/process), and, when the environment has
// AURA_DEBUG_PROTOCOL, reads NDJSON commands from stdin and writes
// `AURA_DEBUG_EVENT {json}` lines to stdout among the program's own output lines.
//
// The package only translates: commands become engine.Session calls (or process
// supervision calls for native runs), engine events become Aura events. See
// docs/protocols/aura.md.
package aura

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"github.com/polydbg/polydbg/internal/wire"
	"github.com/polydbg/polydbg/launch"
)

// Config is one `aura run`.
type Config struct {
	File       string   // the Kite program or native executable
	Args       []string // the native program's arguments (Kite programs take none)
	Native     bool     // run File as a native executable (also chosen for an ELF file)
	Protocol   bool     // AURA_DEBUG_PROTOCOL is set: hello, commands, events
	WaitEnable bool     // nothing runs until the client's enable arrives
	// TerminateGrace is how long a native program has to end after SIGTERM before its
	// process group gets SIGKILL (DefaultTerminateGrace when 0).
	TerminateGrace time.Duration
	Stdin          io.Reader // commands (protocol on), or a native program's stdin (off)
	Stdout, Stderr io.Writer
}

// DefaultTerminateGrace is the time between SIGTERM and SIGKILL for a native program.
const DefaultTerminateGrace = time.Second

// ExitTerminated is the exit code of `aura run` when a terminate request (or a signal to
// polydbg) ended a Dev-VM program: the code a shell reports for a program ended by SIGTERM.
const ExitTerminated = 128 + 15

const usage = `usage: polydbg aura run [--native] [--wait-enable] FILE [ARGS...]

Runs a Kite program (or, with --native or when FILE is an ELF executable, a native
program). With AURA_DEBUG_PROTOCOL in the environment, speaks the Aura debug protocol:
NDJSON commands on stdin, "AURA_DEBUG_EVENT {json}" lines on stdout.
AURA_DEBUG_WAIT=1 (or --wait-enable) holds the program until the client's enable.
`

// Main runs `polydbg aura ARGS`; getenv looks up the environment (os.LookupEnv).
func Main(ctx context.Context, args []string, getenv func(string) (string, bool), stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] != "run" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			fmt.Fprint(stdout, usage)
			return 0
		}
		fmt.Fprint(stderr, usage)
		return 2
	}
	fs := flag.NewFlagSet("aura run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	native := fs.Bool("native", false, "run FILE as a native executable")
	wait := fs.Bool("wait-enable", false, "run nothing until the client's enable command")
	if err := fs.Parse(args[1:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	_, protocol := getenv("AURA_DEBUG_PROTOCOL")
	w, _ := getenv("AURA_DEBUG_WAIT")
	w = strings.TrimSpace(w)
	return Run(ctx, Config{
		File:       fs.Arg(0),
		Args:       fs.Args()[1:],
		Native:     *native,
		Protocol:   protocol,
		WaitEnable: *wait || (w != "" && w != "0" && !strings.EqualFold(w, "false")),
		Stdin:      stdin,
		Stdout:     stdout,
		Stderr:     stderr,
	})
}

// Run runs one program as cfg says and returns the exit code for polydbg: the program's
// own exit code, 128+signal for a native program killed by a signal, ExitTerminated for a
// terminated Dev-VM program, 1 for a Kite program that does not compile, 127 for a native
// program that cannot be launched.
func Run(ctx context.Context, cfg Config) int {
	if cfg.Stdin == nil {
		cfg.Stdin = strings.NewReader("")
	}
	if cfg.TerminateGrace <= 0 {
		cfg.TerminateGrace = DefaultTerminateGrace
	}
	r := &runner{
		cfg:  cfg,
		out:  newStdout(cfg.Stdout, cfg.Protocol),
		errw: wire.NewSyncWriter(cfg.Stderr),
		perf: true, // the original applies enable{start_paused:false, perf:true} by itself
		done: make(chan struct{}),
	}
	defer close(r.done)
	defer r.out.close(ctx) // nothing written is lost when the process exits next
	if cfg.Protocol {
		r.out.event(HelloEvent{Event: "hello", Protocol: ProtocolVersion, Capabilities: Capabilities}, false)
		r.out.flush()
		r.cmds = make(chan Command)
		go r.readCommands(r.cmds)
	}
	if cfg.Native || launch.Detect(cfg.File) == launch.Native {
		return r.runNative(ctx)
	}
	return r.runKite(ctx)
}

// runner is the state of one run, owned by Run's goroutine (but for the command reader).
type runner struct {
	cfg  Config
	out  *stdout
	errw io.Writer
	cmds chan Command // nil once stdin has ended, and with the protocol off
	// inline, when set, handles a command on the goroutine that read it (a Dev-VM run
	// once started: a step is read, run and answered with no hand-off to another thread);
	// false sends the command on cmds as before.
	inline atomic.Pointer[func(Command) bool]
	done   chan struct{}

	// Settings from enable.
	enabled         bool
	startPaused     bool
	perf            bool
	stopOnException bool
	// detached: stdin ended (or the protocol is off): nothing can resume a stop, so no
	// stops are made.
	detached bool
}

// readCommands feeds cmds from stdin and closes it at the end of input. It ends when Run
// has returned (r.done) or stdin ends, whichever comes last.
func (r *runner) readCommands(cmds chan<- Command) {
	defer close(cmds)
	err := ReadCommands(r.cfg.Stdin, MaxLineBytes, func(c Command) {
		if h := r.inline.Load(); h != nil && (*h)(c) {
			return // handled on this goroutine, as it was read
		}
		select {
		case cmds <- c:
		case <-r.done:
		}
	}, func(reason string) {
		r.note("ignored command line: %s", reason)
	})
	if err != nil {
		r.note("reading commands: %v", err)
	}
}

// note writes one line for the user on stderr.
func (r *runner) note(format string, args ...any) {
	fmt.Fprintf(r.errw, "aura: "+format+"\n", args...)
}

// applyEnable records an enable command's settings.
func (r *runner) applyEnable(c Command) {
	r.enabled = true
	if c.StartPaused != nil {
		r.startPaused = *c.StartPaused
	}
	if c.Perf != nil {
		r.perf = *c.Perf
	}
	if c.StopOnException != nil {
		r.stopOnException = *c.StopOnException
	}
}
