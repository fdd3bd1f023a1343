package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/polydbg/polydbg/backend/kitevm"
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/engine/profile"
	"github.com/polydbg/polydbg/kite"
	"github.com/polydbg/polydbg/kite/compile"
)

func init() {
	register(&command{name: "run", summary: "run a Kite program (exit code is the program's)", run: func(args []string) int {
		return runMain(args, os.Stdout, os.Stderr)
	}})
	register(&command{name: "disasm", summary: "print a Kite program's bytecode with pcs, lines and cycle costs", run: func(args []string) int {
		return disasmMain(args, os.Stdout, os.Stderr)
	}})
}

// flushingStderr flushes the buffered stdout before each write to stderr, so that a
// terminal shows both streams in the order the program wrote them.
type flushingStderr struct {
	out    *bufio.Writer
	stderr io.Writer
}

func (w flushingStderr) Write(p []byte) (int, error) {
	w.out.Flush()
	return w.stderr.Write(p)
}

func runMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	flame := fs.String("flame", "", "profile the run and write an SVG flame graph to this `file`")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: polydbg run [--flame out.svg] FILE.kite [args...]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() < 1 {
		fs.Usage()
		return 2
	}
	file := fs.Arg(0)
	out := bufio.NewWriterSize(stdout, 64<<10)
	defer out.Flush()
	errw := flushingStderr{out, stderr}
	if *flame != "" {
		return runProfiled(file, *flame, out, errw)
	}
	return kite.RunFile(file, fs.Args()[1:], out, errw)
}

// runProfiled runs the program under the engine with the profiler on, then writes the
// flame graph and a short summary to stderr.
func runProfiled(file, svg string, stdout, stderr io.Writer) int {
	prog, err := kite.CompileFile(file, nil)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	prof := &profile.Profiler{}
	tg, err := kitevm.New(prog, kitevm.Options{Profiler: prof})
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	s := engine.NewSession(tg)
	sub := s.Subscribe()
	if err := s.Start(false); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	code := 0
	for e := range sub.Events() {
		switch e.Kind {
		case engine.EventOutput:
			w := stdout
			if e.Category != "stdout" {
				w = stderr
			}
			io.WriteString(w, e.Text)
		case engine.EventStopped: // an uncaught error stops; go on to the exit
			_ = s.Continue()
		case engine.EventExited:
			code = e.ExitCode
		}
	}
	r := prof.Report()
	f, err := os.Create(svg)
	if err == nil {
		err = profile.WriteFlameSVG(f, r.FlameFolded, "polydbg flame graph: "+filepath.Base(file))
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(stderr, "polydbg: writing %s: %v\n", svg, err)
		return 1
	}
	fmt.Fprintf(stderr, "flame graph: %s (%.3f ms, %d statements)\n", svg, float64(r.TotalNs)/1e6, len(r.Timeline)+int(r.TimelineDropped))
	for _, line := range profile.FlameSummary(r.FlameFolded, 5) {
		fmt.Fprintln(stderr, "  "+line)
	}
	return code
}

func disasmMain(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: polydbg disasm FILE.kite")
		return 2
	}
	prog, err := kite.CompileFile(args[0], nil)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	if err := compile.Disassemble(out, prog); err != nil {
		fmt.Fprintln(stderr, err)
		return 1
	}
	return 0
}
