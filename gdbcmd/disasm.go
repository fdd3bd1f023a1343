package gdbcmd

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/launch"
)

// debuggee is what launched the session, which disassembles its code; nil when it was not
// launched by package launch (nothing is then disassembled).
func (d *Debugger) debuggee() *launch.Debuggee { return launch.Sessions.DebuggeeOf(d.s) }

// cmdDisassemble is gdb's disassemble: the function that holds the selected frame's pc, or
// the function named, or the one at *ADDR, its instructions with their offsets and "=>" at
// the frame's pc.
func cmdDisassemble(d *Debugger, args string) bool {
	dbg := d.debuggee()
	if dbg == nil {
		d.fail("This target cannot be disassembled here.\n")
		return false
	}
	var pc, cur uint64
	has := false
	if fs, err := d.s.Stack(); err == nil && d.frame < len(fs) {
		cur, has = fs[d.frame].Location.PC, fs[d.frame].Location.HasPC
	}
	switch arg := strings.TrimSpace(args); {
	case arg == "":
		if !has {
			d.fail("No frame selected.\n")
			return false
		}
		pc = cur
	case strings.HasPrefix(arg, "*"):
		a, err := engine.ParseAddress(strings.TrimSpace(arg[1:]))
		if err != nil {
			d.fail("%v\n", err)
			return false
		}
		pc = a
	default:
		loc, err := d.s.Target().ResolveFunction(arg)
		if err != nil {
			d.fail("No symbol \"%s\" in current context.\n", arg)
			return false
		}
		pc = loc.PC
	}
	name, ins, err := dbg.DisassembleFunction(context.Background(), pc)
	if err != nil {
		d.fail("%s\n", explain(err))
		return false
	}
	indexed := false
	if ix, ok := d.s.Target().(engine.IndexedPCs); ok && ix.PCsAreIndexes() {
		indexed = true
	}
	d.printf("Dump of assembler code for function %s:\n", name)
	for _, in := range ins {
		mark := "   "
		if has && in.PC == cur {
			mark = "=> "
		}
		if indexed {
			d.printf("%s%d <+%d>:\t%s\n", mark, in.PC, in.PC-ins[0].PC, in.Text)
		} else {
			d.printf("%s0x%016x <+%d>:\t%s\n", mark, in.PC, in.PC-ins[0].PC, in.Text)
		}
	}
	d.printf("End of assembler dump.\n")
	return false
}

// infoSymbol is gdb's info symbol ADDR: the function or object an address is in, and its
// section ("vals + 8 in section .data").
func (d *Debugger) infoSymbol(expr string) {
	if expr == "" {
		d.fail("Argument required (address).\n")
		return
	}
	v, err := d.eval(expr, true)
	addr, isAddr := engine.IntegerOf(v.Value)
	if err != nil || !isAddr {
		if a, err2 := d.eval("&"+expr, true); err2 == nil { // an array, as C takes it: its address
			err = nil
			addr, isAddr = engine.IntegerOf(a.Value)
		}
	}
	if err != nil {
		d.fail("%s\n", explain(err))
		return
	}
	if !isAddr {
		d.fail("%s is not an address.\n", expr)
		return
	}
	name, section, ok, err := d.s.SymbolAt(uint64(addr))
	switch {
	case err != nil:
		d.fail("%s\n", explain(err))
	case !ok:
		d.printf("No symbol matches %s.\n", expr)
	default:
		name = strings.Replace(name, "+", " + ", 1)
		d.printf("%s in section %s\n", name, section)
	}
}

// infoSharedLibrary is gdb's info sharedlibrary: the shared libraries the program loaded,
// with where each is loaded.
func (d *Debugger) infoSharedLibrary() {
	mods, err := d.s.Modules(context.Background())
	if err != nil {
		d.fail("%s\n", explain(err))
		return
	}
	var libs []engine.Module
	for _, m := range mods {
		if !m.Symbols { // the program itself is the one with symbols
			libs = append(libs, m)
		}
	}
	if len(libs) == 0 {
		d.printf("No shared libraries loaded at this time.\n")
		return
	}
	// As gdb lists them: the dynamic linker first (it is known from the start), then in the
	// dynamic linker's order; a core dump's all in that order (read at once).
	slices.SortStableFunc(libs, func(a, b engine.Module) int {
		if d.s.PostMortem() {
			return 0
		}
		switch {
		case a.Interpreter == b.Interpreter:
			return 0
		case a.Interpreter:
			return -1
		}
		return 1
	})
	d.printf("%-20s%-20s%-12s%s\n", "From", "To", "Syms Read", "Shared Object Library")
	missing := false
	for _, m := range libs {
		from, to, read := "", "", "No"
		if m.TextEnd > 0 {
			from, to, read = fmt.Sprintf("0x%016x", m.TextStart), fmt.Sprintf("0x%016x", m.TextEnd), "Yes"
			if !m.DebugInfo {
				read, missing = "Yes (*)", true
			}
		}
		d.printf("%-20s%-20s%-12s%s\n", from, to, read, m.Path)
	}
	if missing {
		d.printf("(*): Shared library is missing debugging information.\n")
	}
}
