// Package cli is polydbg's terminal debugger: gdb's commands (package gdbcmd) read line by
// line from a terminal, with line editing, history and Tab completion, or from a pipe or a
// script, with Ctrl-C pausing the program.
package cli

import (
	"errors"
	"io"
	"strings"

	"github.com/polydbg/polydbg/gdbcmd"
	"github.com/polydbg/polydbg/internal/lineedit"
)

// Config says what to debug and where to talk.
type Config struct {
	Debug  gdbcmd.Config // the program, its sessions and how they are shown
	In     io.Reader
	Prompt string // "(polydbg) " by default
	// Echo prints each command after the prompt (useful when input is piped).
	Echo bool
	// Interrupts, when set, arranges for pause to be called on Ctrl-C and returns a
	// function that undoes it.
	Interrupts func(pause func()) (stop func())
	// Terminal reads commands from the process's terminal (standard input and output)
	// with line editing, history and Tab completion instead of from In.
	Terminal bool
	// HistoryFile keeps the commands typed at the terminal across runs ("" keeps none);
	// HistorySize caps it (lineedit.DefaultHistorySize when 0).
	HistoryFile string
	HistorySize int
	// Commands run first, each as if typed (gdb's -ex and -x); Debug.Batch then ends the
	// session without reading In (gdb's -batch), killing the program if it still runs.
	Commands []string
}

// Run runs the debugger until quit or the end of input; it returns the exit status.
func Run(cfg Config) int {
	if cfg.Prompt == "" {
		cfg.Prompt = "(polydbg) "
	}
	var (
		d  *gdbcmd.Debugger
		in lineedit.Reader // the terminal's, made first: gdb's questions read their answer from it
	)
	cfg.Debug.Marks = cfg.Debug.Marks || cfg.Terminal
	if cfg.Terminal && !cfg.Debug.Batch {
		in = lineedit.NewTerminal(lineedit.Options{HistoryFile: cfg.HistoryFile, HistorySize: cfg.HistorySize,
			Complete: func(before string) (string, []string) { return d.Complete(before) }})
		defer in.Close()
		cfg.Debug.Confirm = func(q string) bool { return confirm(in, cfg.Debug.Out, q) }
	}
	d, err := gdbcmd.New(cfg.Debug)
	if err != nil {
		io.WriteString(cfg.Debug.Out, err.Error()+"\n")
		return 1
	}
	defer d.Close()
	if cfg.Interrupts != nil {
		stop := cfg.Interrupts(d.Interrupt)
		defer stop()
	}
	for _, line := range cfg.Commands {
		if cfg.Echo {
			d.Printf("%s%s\n", cfg.Prompt, line)
		}
		if d.Exec(line, false) {
			return 0
		}
	}
	if cfg.Debug.Batch { // as gdb -batch: 1 when the last command failed
		if d.Failed() {
			return 1
		}
		return 0
	}
	if in == nil {
		in = lineedit.Pipe(cfg.In, d.Writer(), gdbcmd.MaxLine)
		defer in.Close()
	}
	for {
		d.Prompted()
		raw, err := in.ReadLine(d.Prompt(cfg.Prompt))
		switch {
		case errors.Is(err, lineedit.ErrLineTooLong):
			d.Printf("Line too long (more than %d bytes); ignored.\n", gdbcmd.MaxLine)
			continue
		case errors.Is(err, lineedit.ErrInterrupted): // Ctrl-C at the prompt, as in gdb
			d.Printf("Quit\n")
			continue
		case err != nil && cfg.Terminal: // Ctrl-D
			d.Printf("quit\n")
			if d.Exec("quit", false) {
				return 0
			}
			continue
		case err != nil: // the end of piped input: as gdb, quit (which asks, and answers itself, when the program is alive)
			if !d.Live() {
				d.Printf("\n")
			}
			d.Exec("quit", false)
			return 0
		}
		line := strings.TrimSpace(raw)
		if cfg.Echo {
			d.Printf("%s\n", line)
		}
		if line != "" {
			in.Remember(line)
		}
		if d.Exec(line, true) {
			return 0
		}
	}
}

// confirm asks question at the terminal until the answer is y or n, as gdb's query: y or
// yes, n or no; Ctrl-C answers no, the end of input yes.
func confirm(in lineedit.Reader, out io.Writer, question string) bool {
	for {
		line, err := in.ReadLine(question)
		switch a := strings.ToLower(strings.TrimSpace(line)); {
		case errors.Is(err, lineedit.ErrInterrupted):
			io.WriteString(out, "Quit\n")
			return false
		case err != nil:
			io.WriteString(out, "EOF [answered Y; input not from terminal]\n")
			return true
		case a == "y" || a == "yes":
			return true
		case a == "n" || a == "no":
			return false
		}
		io.WriteString(out, "Please answer y or n.\n")
	}
}
