package kite

import (
	"errors"
	"fmt"
	"io"

	"github.com/polydbg/polydbg/kite/syntax"
	"github.com/polydbg/polydbg/kite/vm"
)

// RunFile compiles and runs the Kite program in path the way `polydbg run FILE` does, and
// returns the process exit code:
//
//   - compile errors: every error is printed to stderr as "file:line:col: error: message",
//     exit code 1;
//   - an uncaught runtime error: its "file:line:col: error: message" line and the Kite
//     stack trace are printed to stderr, exit code 1;
//   - exit(n): exit code n; otherwise 0.
//
// path is used as given in every message. args are the program's arguments; the language
// has no way to read them yet, so they are accepted and ignored.
func RunFile(path string, args []string, stdout, stderr io.Writer) int {
	_ = args
	prog, err := CompileFile(path, nil)
	if err != nil {
		printCompileError(stderr, err)
		return 1
	}
	m, err := vm.New(prog, vm.Options{Stdout: stdout, Stderr: stderr})
	if err != nil {
		fmt.Fprintf(stderr, "%s: error: %v\n", path, err)
		return 1
	}
	err = m.Run()
	switch {
	case err == nil:
		return 0
	case errors.Is(err, vm.ErrExit):
		return m.ExitCode()
	}
	var re *vm.Error
	if errors.As(err, &re) {
		fmt.Fprintln(stderr, re.Error())
		io.WriteString(stderr, re.Trace())
		return 1
	}
	fmt.Fprintf(stderr, "%s: error: %v\n", path, err)
	return 1
}

// printCompileError prints each error of a syntax.ErrorList on its own line; any other
// error (a file that cannot be read) on one line.
func printCompileError(w io.Writer, err error) {
	var list syntax.ErrorList
	if errors.As(err, &list) {
		for _, e := range list {
			fmt.Fprintln(w, e.Error())
		}
		return
	}
	fmt.Fprintf(w, "error: %v\n", err)
}
