package gdbcmd

import (
	"context"
	"fmt"
	"github.com/polydbg/polydbg/internal/cxxname"
	"regexp"
	"slices"
	"strconv"
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
	raw, withSource, byLine := false, false, false
	for strings.HasPrefix(args, "/") { // gdb's modifiers: /r raw bytes, /s (or /m) with the source
		mods, rest, _ := strings.Cut(args[1:], " ")
		for _, m := range mods {
			switch m {
			case 'r', 'b':
				raw = true
			case 's':
				withSource = true
			case 'm': // the older source-centric form: each line, its code, a blank line
				withSource, byLine = true, true
			default:
				d.fail("Invalid disassembly modifier.\n")
				return false
			}
		}
		args = strings.TrimSpace(rest)
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
	name, ins, err := dbg.DisassembleFunction(d.disasmContext(), pc)
	if err != nil {
		d.fail("%s\n", explain(err))
		return false
	}
	indexed := false
	if ix, ok := d.s.Target().(engine.IndexedPCs); ok && ix.PCsAreIndexes() {
		indexed = true
	}
	d.printf("Dump of assembler code for function %s:\n", name)
	show := func(in launch.Instruction) {
		mark := "   "
		if has && in.PC == cur {
			mark = "=> "
		}
		text := in.Text
		if raw && !indexed && in.Size > 0 {
			text = d.rawBytes(in.PC, in.PC+uint64(in.Size)) + "\t" + text
		}
		if indexed {
			d.printf("%s%d <+%d>:\t%s\n", mark, in.PC, in.PC-ins[0].PC, text)
		} else {
			pc, text := d.fileAddresses(in.PC, text)
			d.printf("%s0x%016x <+%d>:\t%s\n", mark, pc, in.PC-ins[0].PC, text)
		}
	}
	switch {
	case byLine && !indexed:
		d.byLine(ins, show)
	default:
		src := sourceGroups{d: d}
		for _, in := range ins {
			if withSource && !indexed {
				src.before(in.PC)
			}
			show(in)
		}
	}
	d.printf("End of assembler dump.\n")
	return false
}

// rawBytes are the bytes of the instruction from pc to end as gdb's disassemble /r shows
// them: in hex, a space between, padded as for x86's seven bytes a line.
func (d *Debugger) rawBytes(pc, end uint64) string {
	n := int(min(end-pc, 15))
	b, err := d.s.ReadMemory(pc, max(n, 1))
	if err != nil {
		return ""
	}
	parts := make([]string, len(b))
	for i, c := range b {
		parts[i] = fmt.Sprintf("%02x", c)
	}
	return fmt.Sprintf("%-19s", strings.Join(parts, " "))
}

// byLine is disassemble /m, gdb's older source-centric form: the function's lines in
// order, each followed by all of its instructions and, when it has some, a blank line.
func (d *Debugger) byLine(ins []launch.Instruction, show func(launch.Instruction)) {
	byLine := map[int][]launch.Instruction{}
	file, first, last := "", 0, 0
	for _, in := range ins {
		l, err := d.s.ResolvePC(in.PC)
		if err != nil || l.Line == 0 || file != "" && l.File != file {
			continue // (code of another file: an inlined header's)
		}
		file = l.File
		byLine[l.Line] = append(byLine[l.Line], in)
		if first == 0 || l.Line < first {
			first = l.Line
		}
		last = max(last, l.Line)
	}
	for n := first; n > 0 && n <= last; n++ {
		d.showLine(file, n)
		for _, in := range byLine[n] {
			show(in)
		}
		if len(byLine[n]) > 0 {
			d.printf("\n")
		}
	}
}

// sourceGroups prints, for disassemble /s, the source lines before each run of
// instructions of one line, as gdb does: the file first, then each line once the code
// reaches it (with the lines between since the last one shown), a blank line between runs.
type sourceGroups struct {
	d          *Debugger
	file       string
	line, last int
	started    bool
}

func (g *sourceGroups) before(pc uint64) {
	l, err := g.d.s.ResolvePC(pc)
	if err != nil || l.Line == 0 || l.File == g.file && l.Line == g.line {
		return
	}
	if !g.started || l.File != g.file {
		if g.started {
			g.d.printf("\n")
		}
		g.d.printf("%s:\n", g.d.fileName(l.File))
		g.started, g.file, g.last = true, l.File, l.Line-1
	} else {
		g.d.printf("\n")
	}
	from := l.Line
	if l.Line > g.last {
		from = g.last + 1
	}
	for n := from; n <= l.Line; n++ {
		g.d.showLine(l.File, n)
	}
	g.line, g.last = l.Line, max(g.last, l.Line)
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
	if a, aerr := d.s.Address(d.frame, expr); err == nil && !isAddr && aerr == nil && d.limits.HideAddresses { // (its text has no address)
		addr, isAddr = int64(a), true
	}
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
	name, section, ok, err := d.s.TableSymbolAt(uint64(addr)) // (a clone by its own symbol, as gdb)
	switch {
	case err != nil:
		d.fail("%s\n", explain(err))
	case !ok:
		d.printf("No symbol matches %s.\n", expr)
	default:
		name = strings.Replace(cxxname.Symbol(name), "+", " + ", 1)
		if d.s.State() == engine.Initialized && !d.ranOnce { // gdb names the file once there are several (the libraries)
			section, _, _ = strings.Cut(section, " of ")
		}
		d.printf("%s in section %s\n", name, section)
	}
}

// infoVtbl is gdb's info vtbl EXPR: the virtual function table of a C++ object (or of the
// one a pointer points to), its slots named by their functions' symbols.
func (d *Debugger) infoVtbl(expr string) {
	if expr == "" {
		d.fail("Argument required (expression to compute).\n")
		return
	}
	vt, err := d.s.Vtable(d.frame, expr)
	if err != nil {
		d.fail("%s\n", explain(err))
		return
	}
	if len(vt.Entries) == 0 { // virtual destructors only: gdb counts no slot, and says nothing
		return
	}
	d.printf("vtable for '%s' @ %#x (subobject @ %#x):\n", vt.Class, vt.Addr, vt.Object)
	for i, e := range vt.Entries {
		if e.Name != "" {
			d.printf("[%d]: %#x <%s>\n", i, e.Addr, e.Name)
		} else {
			d.printf("[%d]: %#x\n", i, e.Addr)
		}
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

// loadedAddress is a hex address in an instruction's text: a branch's target, or what a
// rip-relative operand points to.
var loadedAddress = regexp.MustCompile(`0x[0-9a-f]+`)

// fileAddresses are pc and the addresses in text as gdb shows them before a
// position-independent program runs: in its file (fileAddress), where polydbg has it
// loaded already. Numbers below the load address (displacements, immediates) stay.
func (d *Debugger) fileAddresses(pc uint64, text string) (uint64, string) {
	return d.fileAddress(pc), d.fileText(text)
}

// fileText is text with each hex number of the program's image (at or above the load
// address, within maxImage) written as the file's address, before a position-independent program runs (a value's pointers, as gdb
// shows them then); text as it is otherwise.
func (d *Debugger) fileText(text string) string {
	base := d.fileBias()
	if base == 0 || !strings.Contains(text, "0x") {
		return text
	}
	return loadedAddress.ReplaceAllStringFunc(text, func(h string) string {
		n, err := strconv.ParseUint(h[2:], 16, 64)
		if err != nil || n < base || n-base >= maxImage {
			return h // not an address of the program's image: a displacement, a double's bits
		}
		return fmt.Sprintf("%#x", n-base)
	})
}

// maxImage bounds how far past its load address an address of the program's own image
// lies (fileText): a program's file is far smaller than 4 GiB.
const maxImage = 1 << 32
