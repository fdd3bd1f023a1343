package main

import (
	"flag"
	"fmt"
	"github.com/polydbg/polydbg/internal/wire"
	"io"
	"os"
	"os/signal"
	"strconv"
	"time"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/gdbcmd"
	"github.com/polydbg/polydbg/internal/lineedit"
	"github.com/polydbg/polydbg/kite"
	"github.com/polydbg/polydbg/launch"
	"github.com/polydbg/polydbg/protocol/cli"
	"golang.org/x/sys/unix"
)

func init() {
	register(&command{name: "debug", summary: "debug a program in the terminal, with gdb's commands", run: debugCmd})
}

const debugUsage = `usage:
  polydbg debug FILE.kite                      a Kite program
  polydbg debug [--native] PROG [args...]      a native program, under gdbserver on loopback
                                               (an ELF executable needs no --native)
  polydbg debug -p PID [--elf FILE]            a running process, attached to under gdbserver (gdb -p)
  polydbg debug PROG CORE | --core CORE [PROG]  a core dump of PROG (x86-64 Linux), after its end (gdb PROG CORE)
  polydbg debug --gdb HOST:PORT --elf FILE     any GDB remote stub (gdbserver, OpenOCD, a probe...)
  polydbg debug --qemu MACHINE FILE.elf        firmware in qemu-system-arm, halted at reset
At a terminal: line editing, Tab completion, Ctrl-R history search, Ctrl-C pauses the
program, Ctrl-D quits; the history is kept in $POLYDBG_HISTORY or
$XDG_STATE_HOME/polydbg/history (~/.local/state/polydbg/history), the last
$POLYDBG_HISTSIZE commands (1000). NO_COLOR turns colour off.
flags:`

func debugCmd(args []string) int {
	fs := flag.NewFlagSet("debug", flag.ContinueOnError)
	echo := fs.Bool("echo", false, "echo each command (for piped scripts)")
	native := fs.Bool("native", false, "debug a native program under gdbserver")
	gdbAddr := fs.String("gdb", "", "connect to a GDB remote stub at `HOST:PORT`")
	elf := fs.String("elf", "", "the ELF `file` of the program behind --gdb (or -p: its executable by default)")
	coreFile := fs.String("core", "", "debug the core dump `FILE` (its program: the argument, or the file the dump names)")
	fs.StringVar(coreFile, "c", "", "the same as --core")
	var pid int
	fs.IntVar(&pid, "p", 0, "attach to the running process `PID` (gdb -p); quit detaches from it")
	fs.IntVar(&pid, "pid", 0, "the same as -p")
	machine := fs.String("qemu", "", "start qemu-system-arm for `MACHINE` (lm3s6965evb, mps2-an385...)")
	noHistory := fs.Bool("no-history", false, "keep no command history across runs")
	context := fs.Bool("context", false, "show source, stack, variables and registers after each stop (set context on)")
	var commands []string
	fs.Func("ex", "run `COMMAND` first, as if typed (repeatable, in order; gdb's -ex)", func(c string) error {
		commands = append(commands, c)
		return nil
	})
	var initial []string
	fs.Func("iex", "run `COMMAND` before the -ex ones (gdb's -iex; polydbg reads the program first, and debug-file-directory applies to its libraries)", func(c string) error {
		initial = append(initial, c)
		return nil
	})
	fs.Func("x", "run the commands in `FILE` first (repeatable; gdb's -x, the source command)", func(f string) error {
		commands = append(commands, "source "+f)
		return nil
	})
	batch := fs.Bool("batch", false, "quit after the -ex and -x commands, killing the program if it runs (gdb's -batch)")
	webAddr := webFlag(fs)
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, debugUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	commands = append(initial, commands...)
	spec, err := debugSpec(fs.Args(), *native, *gdbAddr, *elf, *machine, pid, *coreFile)
	if err != nil {
		fmt.Fprintln(os.Stderr, "polydbg debug:", err)
		if err == errUsage {
			fs.Usage()
			return 2
		}
		return 1
	}
	for _, c := range initial { // read the program and its libraries as they say (the commands run too)
		if dirs, ok := gdbcmd.DebugDirsSet(c); ok {
			spec.Remote.DebugDirs = dirs
		}
	}
	stopWeb, err := startWeb(*webAddr, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "polydbg debug:", err)
		return 1
	}
	defer stopWeb()
	if spec.Kind == launch.Native {
		exportScreenSize(os.Stdin)
	}
	withArgs := registeredWithArgs(spec, "debug")
	newSession := func() (*engine.Session, error) { return withArgs(gdbcmd.Run{Args: spec.Args, Env: spec.Env}) }
	cfg := cli.Config{In: os.Stdin, Echo: *echo, Interrupts: withInterrupt, Commands: commands,
		Debug: gdbcmd.Config{Out: os.Stdout, NewSession: newSession, Context: *context,
			Attached: spec.Kind == launch.QEMU || spec.Kind == launch.Remote, Attach: spec.Kind == launch.Attach, Batch: *batch}}
	if spec.Kind == launch.Native { // run ARGS and set args change its arguments
		cfg.Debug.Program, cfg.Debug.Args = launch.ProgramPath(spec.Program), spec.Args
		cfg.Debug.NewSessionFor = withArgs
	}
	switch {
	case *batch: // no input is read: the commands and their answers only, as gdb -batch
	case !isTerminal(os.Stdin) && spec.Kind == launch.Kite:
		// Commands from a pipe, and a program that reads none of them: the pipes carry the
		// commands and answers alone, served as the stdio protocols are (stdio.go).
		out := wire.NewOutbox(protocolStdout())
		defer out.Close()
		cfg.In, cfg.Debug.Out = wire.FlushBeforeRead(os.Stdin, out), out
	case isTerminal(os.Stdin) && isTerminal(os.Stdout):
		cfg.Terminal = true
		cfg.Debug.Color = os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
		if !*noHistory {
			cfg.HistoryFile = lineedit.DefaultHistoryFile("polydbg")
			cfg.HistorySize, _ = strconv.Atoi(os.Getenv("POLYDBG_HISTSIZE")) // 0: the default
		}
	}
	return cli.Run(cfg)
}

// exportScreenSize sets LINES and COLUMNS in polydbg's environment, which the program
// inherits, when they are not set: to the terminal's size, 24 by 80 without one. gdb's
// readline does the same, so a program sees the same environment (and its stack begins
// at the same address) under either debugger.
func exportScreenSize(f *os.File) {
	lines, columns := 24, 80
	if ws, err := unix.IoctlGetWinsize(int(f.Fd()), unix.TIOCGWINSZ); err == nil && ws.Row > 0 && ws.Col > 0 {
		lines, columns = int(ws.Row), int(ws.Col)
	}
	if _, ok := os.LookupEnv("LINES"); !ok {
		os.Setenv("LINES", strconv.Itoa(lines))
	}
	if _, ok := os.LookupEnv("COLUMNS"); !ok {
		os.Setenv("COLUMNS", strconv.Itoa(columns))
	}
}

// isTerminal reports whether f is a terminal (it answers the termios request).
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

var errUsage = fmt.Errorf("missing or conflicting arguments")

// debugSpec is the debuggee the flags name. A Kite program is compiled once here, so that a
// mistake in it is said before the prompt.
func debugSpec(args []string, native bool, gdbAddr, elf, machine string, pid int, coreFile string) (launch.Spec, error) {
	if coreFile == "" && len(args) == 2 && !native && gdbAddr == "" && machine == "" && pid == 0 && launch.IsCore(args[1]) {
		coreFile, args = args[1], args[:1] // gdb PROG CORE
	}
	if coreFile != "" {
		if native || gdbAddr != "" || machine != "" || pid != 0 || len(args) > 1 {
			return launch.Spec{}, errUsage
		}
		spec := launch.Spec{Kind: launch.Core, Core: coreFile}
		if len(args) == 1 {
			spec.Program = args[0]
		}
		return spec, nil
	}
	if pid != 0 {
		if native || gdbAddr != "" || machine != "" || len(args) > 0 || pid < 0 {
			return launch.Spec{}, errUsage
		}
		return launch.Spec{Kind: launch.Attach, PID: pid, ELF: elf, Program: elf}, nil
	}
	if (native || gdbAddr == "" && machine == "") && len(args) >= 1 {
		if err := launch.CheckRunsHere(args[0]); err != nil {
			return launch.Spec{}, fmt.Errorf("%w (polydbg debug --qemu MACHINE %s, or --gdb HOST:PORT --elf %s)", err, args[0], args[0])
		}
	}
	switch {
	case native && gdbAddr == "" && machine == "" && len(args) >= 1:
		return launch.Spec{Kind: launch.Native, Program: args[0], Args: args[1:]}, nil
	case gdbAddr != "" && !native && machine == "" && elf != "" && len(args) == 0:
		return launch.Spec{Kind: launch.Remote, Address: gdbAddr, ELF: elf, Program: elf}, nil
	case machine != "" && !native && gdbAddr == "" && len(args) == 1:
		return launch.Spec{Kind: launch.QEMU, Machine: machine, ELF: args[0], Program: args[0]}, nil
	case !native && gdbAddr == "" && machine == "" && len(args) >= 1 && launch.Detect(args[0]) == launch.Native:
		// An executable, as gdb takes it (with its arguments, as gdb --args): run it under
		// gdbserver, as --native does.
		return launch.Spec{Kind: launch.Native, Program: args[0], Args: args[1:]}, nil
	case !native && gdbAddr == "" && machine == "" && len(args) == 1:
		if _, err := kite.CompileFile(args[0], nil); err != nil {
			return launch.Spec{}, err
		}
		return launch.Spec{Kind: launch.Kite, Program: args[0]}, nil
	}
	return launch.Spec{}, errUsage
}

// waitingFor says what starting spec waits for, when that is slow.
func waitingFor(spec launch.Spec) string {
	switch spec.Kind {
	case launch.Native:
		return "gdbserver to start " + spec.Program + " and answer on loopback"
	case launch.Remote:
		return "the GDB stub at " + spec.Address + " to answer"
	case launch.Attach:
		return fmt.Sprintf("gdbserver to attach to process %d", spec.PID)
	case launch.Core:
		return "the core dump " + spec.Core + " to be read"
	case launch.QEMU:
		return "qemu-system-arm (" + spec.Machine + ") to start its GDB stub"
	}
	return spec.Program + " to load"
}

// notifySlow says on w what polydbg is waiting for when that takes more than a second
// (a cold QEMU, a gdbserver on a loaded machine, a stub that does not answer); the
// returned function ends the wait, saying how long it took if it succeeded.
func notifySlow(w io.Writer, waitingFor string) (done func(ok bool)) {
	start := time.Now()
	shown := make(chan struct{})
	t := time.AfterFunc(time.Second, func() {
		fmt.Fprintf(w, "polydbg: waiting for %s...\n", waitingFor)
		close(shown)
	})
	return func(ok bool) {
		if !t.Stop() {
			<-shown
			if !ok {
				return
			}
			fmt.Fprintf(w, "polydbg: ready after %s\n", time.Since(start).Round(100*time.Millisecond))
		}
	}
}

// withInterrupt pauses the running program on Ctrl-C instead of killing the debugger.
func withInterrupt(pause func()) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-ch:
				pause()
			case <-done:
				return
			}
		}
	}()
	return func() { signal.Stop(ch); close(done) }
}
