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
	var outs profileOutputs
	fs.StringVar(&outs.flame, "flame", "", "profile the run and write an SVG flame graph to this `file`")
	fs.StringVar(&outs.pprof, "pprof", "", "profile the run and write a gzipped profile.proto (go tool pprof) to this `file`")
	fs.StringVar(&outs.speedscope, "speedscope", "", "profile the run and write a speedscope JSON profile to this `file`")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: polydbg run [--flame out.svg] [--pprof out.pb.gz] [--speedscope out.json] FILE.kite [args...]")
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
	if outs != (profileOutputs{}) {
		return runProfiled(file, outs, out, errw)
	}
	return kite.RunFile(file, fs.Args()[1:], out, errw)
}

// profileOutputs are the files a profiled run writes (empty: not that format).
type profileOutputs struct{ flame, pprof, speedscope string }

// runProfiled runs the program under the engine with the profiler on, then writes the
// profile files and a short summary to stderr.
func runProfiled(file string, outs profileOutputs, stdout, stderr io.Writer) int {
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
	base := filepath.Base(file)
	writers := []struct {
		what, path string
		write      func(io.Writer) error
	}{
		{"flame graph", outs.flame, func(w io.Writer) error { return profile.WriteFlameSVG(w, r.FlameFolded, "polydbg flame graph: "+base) }},
		{"pprof profile", outs.pprof, func(w io.Writer) error { return profile.WritePprof(w, r, file) }},
		{"speedscope profile", outs.speedscope, func(w io.Writer) error { return profile.WriteSpeedscope(w, r, base) }},
	}
	for _, o := range writers {
		if o.path == "" {
			continue
		}
		if err := writeFile(o.path, o.write); err != nil {
			fmt.Fprintf(stderr, "polydbg: writing %s: %v\n", o.path, err)
			return 1
		}
		fmt.Fprintf(stderr, "%s: %s\n", o.what, o.path)
	}
	fmt.Fprintf(stderr, "profile of %s: %.3f ms, %d statements\n", base, float64(r.TotalNs)/1e6, len(r.Timeline)+int(r.TimelineDropped))
	for _, line := range profile.FlameSummary(r.FlameFolded, 5) {
		fmt.Fprintln(stderr, "  "+line)
	}
	fmt.Fprintf(stderr, "  %12s %12s %10s  %s\n", "self ns", "total ns", "stmts", "function")
	for _, f := range r.Functions() {
		fmt.Fprintf(stderr, "  %12d %12d %10d  %s\n", f.SelfNs, f.TotalNs, f.SelfStatements, f.Name)
	}
	return code
}

// writeFile creates path and writes it with write, reporting the first error.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = write(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
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
