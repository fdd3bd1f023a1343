// Package kite is the entry point to the Kite language: compile a source file into a
// program for the VM. The parts are kite/syntax (scanner, parser), kite/compile (resolver,
// bytecode, line table) and kite/vm (the interpreter).
package kite

import (
	"github.com/polydbg/polydbg/internal/fileload"
	"github.com/polydbg/polydbg/kite/compile"
	"github.com/polydbg/polydbg/kite/syntax"
	"github.com/polydbg/polydbg/kite/vm"
)

// Compile parses and compiles src. host lists the host functions the program may call
// (none for plain programs). The error, if any, is a syntax.ErrorList with every problem.
func Compile(filename string, src []byte, host []*vm.Builtin) (*compile.Program, error) {
	f, err := syntax.Parse(filename, src)
	if err != nil {
		return nil, err
	}
	return compile.Compile(f, src, vm.BuiltinNames(host))
}

// CompileFile reads (a regular file of at most 64 MiB, see fileload) and compiles a file.
func CompileFile(filename string, host []*vm.Builtin) (*compile.Program, error) {
	src, err := fileload.ReadFile(filename)
	if err != nil {
		return nil, err
	}
	return Compile(filename, src, host)
}
