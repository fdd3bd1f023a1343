package gdbcmd

import (
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/cstring"
)

// Machine-level commands for targets with registers and memory (native programs,
// microcontrollers): info registers, x (examine memory), set $REG = VALUE.

func (d *Debugger) infoRegisters(names []string) {
	if d.notStarted("The program has no registers now.") {
		return
	}
	regs, err := d.s.FrameRegisters(d.frame) // an outer frame's as the unwinder recovered them, as gdb's
	if err != nil {
		d.fail("%s\n", explain(err))
		return
	}
	if len(names) == 0 { // gdb's general group
		for _, r := range infoGeneralRegisters(regs) {
			d.registerLine(r.Name, r)
		}
		return
	}
	for _, name := range names {
		name = strings.TrimPrefix(name, "$")
		if group, ok := registerGroup(regs, name); ok && isRegisterGroup(name) {
			for _, r := range group {
				d.registerLine(r.Name, r)
			}
			continue
		}
		r, ok := findRegister(regs, name)
		if !ok {
			d.fail("Invalid register `%s'\n", name)
			return
		}
		d.registerLine(name, r)
	}
}

// registerLine is a register's line of info registers, as gdb's: its value in hex and
// naturally; a vector's elements in hex; x87's float with its raw bits.
func (d *Debugger) registerLine(name string, r engine.Register) {
	switch {
	case r.Float && r.Hex != "":
		d.printf("%-15s%-19s (raw %s)\n", name, r.Natural, r.Hex)
	case r.Hex != "":
		d.printf("%-15s%s\n", name, r.Hex)
	default:
		d.printf("%-15s%-19s %s\n", name, fmt.Sprintf("%#x", r.Value), d.registerNatural(r))
	}
}

// registerAliases are gdb's names that stand for a machine's own registers: the program
// counter, the stack pointer, the frame pointer and the status register.
var registerAliases = map[string][]string{
	"pc": {"rip", "eip", "pc"}, "sp": {"rsp", "esp", "sp"}, "fp": {"rbp", "ebp", "r11", "r7"},
	"ps": {"eflags", "xpsr", "cpsr"},
}

// findRegister finds a register by its name or one of gdb's aliases for it.
func findRegister(regs []engine.Register, name string) (engine.Register, bool) {
	for _, r := range regs {
		if r.Name == name {
			return r, true
		}
	}
	for _, real := range registerAliases[name] {
		for _, r := range regs {
			if r.Name == real {
				return r, true
			}
		}
	}
	return engine.Register{}, false
}

// infoGeneralRegisters are the registers info registers shows without names, as gdb's
// general group: up to the pc and the status register, the segment registers after them,
// and AVX-512's mask registers.
func infoGeneralRegisters(regs []engine.Register) []engine.Register {
	out := generalRegisters(regs)
	for _, r := range regs[len(out):] {
		switch r.Name {
		case "cs", "ss", "ds", "es", "fs", "gs", "k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7":
			out = append(out, r)
		}
	}
	return out
}

// registerNatural is info registers' last column: the register's value as the target
// prints it by its type (engine.Register.Natural), else a signed integer of its width.
func (d *Debugger) registerNatural(r engine.Register) string {
	if r.Natural != "" {
		return r.Natural
	}
	if r.Size > 0 && r.Size < 8 {
		shift := 64 - 8*uint(r.Size)
		return strconv.FormatInt(int64(r.Value<<shift)>>shift, 10)
	}
	return strconv.FormatInt(int64(r.Value), 10)
}

// maxExamine bounds the memory one x command reads (x/s and x/i: the count of strings
// or instructions times the unit).
const maxExamine = 64 << 10

// cmdExamine is gdb's x/NFU ADDR: N units of size U (b, h, w, g) shown in format F (x
// and z hex, d signed, u unsigned, o octal, t binary, a address, c char, f float, s string,
// i instruction). As gdb, a format or size left out is the last one used, and x without
// ADDR goes on after the last unit shown.
func cmdExamine(d *Debugger, args string) bool {
	count, format, unit := 1, d.examined.format, d.examined.unit
	if format == 0 {
		format, unit = 'x', 4
	}
	if !strings.HasPrefix(args, "/") && strings.TrimSpace(args) == "" && d.examined.count > 0 {
		count = d.examined.count // a bare x goes on as the last one did
	}
	sized := false
	if strings.HasPrefix(args, "/") {
		spec, rest, _ := strings.Cut(args[1:], " ")
		args = rest
		digits := strings.TrimRight(spec, "xzduotacfsibhwg")
		if digits != "" {
			n, err := strconv.Atoi(digits)
			if err != nil || n <= 0 {
				d.fail("Invalid number %q.\n", digits)
				return false
			}
			count = n
		}
		for _, c := range []byte(spec[len(digits):]) {
			switch c {
			case 'x', 'z', 'd', 'u', 'o', 't', 'a', 'c', 'f', 's', 'i':
				format = c
			case 'b', 'h', 'w', 'g':
				unit, sized = map[byte]int{'b': 1, 'h': 2, 'w': 4, 'g': 8}[c], true
			}
		}
	}
	switch {
	case format == 'a':
		unit = max(d.pcWidth()/2, 4) // a pointer's size: 8 bytes on x86-64, 4 on a Cortex-M
	case format == 'c' && !sized:
		unit = 1
	case format == 'f' && unit != 4 && unit != 8:
		unit = 8
	}
	if count*unit > maxExamine {
		d.fail("x: at most %d bytes at a time.\n", maxExamine)
		return false
	}
	var addr uint64
	if strings.TrimSpace(args) == "" {
		if !d.examined.valid {
			d.fail("Argument required (starting display address).\n")
			return false
		}
		addr = d.examined.next
	} else {
		var err error
		if addr, err = d.address(strings.TrimSpace(args)); err != nil {
			d.fail("%v\n", err)
			return false
		}
	}
	d.examined.format, d.examined.unit, d.examined.count = format, unit, count
	switch format {
	case 's':
		if sized && (unit == 2 || unit == 4) { // x/hs, x/ws: char16_t's and char32_t's strings, as gdb's u"..." and U"..."
			d.examineWideStrings(addr, count, unit)
			return false
		}
		d.examineStrings(addr, count)
		return false
	case 'i':
		d.examineInstructions(addr, count)
		return false
	}
	data, err := d.s.ReadMemory(addr, count*unit)
	if errors.Is(err, engine.ErrNotStarted) || errors.Is(err, engine.ErrRunning) || errors.Is(err, engine.ErrEnded) || errors.Is(err, engine.ErrUnsupported) {
		d.fail("%s\n", explain(err))
		return false
	}
	if err != nil || len(data) == 0 {
		d.printf("%s:\tCannot access memory at address %#x\n", d.labelled(addr), addr) // as gdb
		return false
	}
	perLine := max(1, 16/unit)
	if format == 'c' {
		perLine = 8
	}
	units := engine.FormatUnits(data, unit, format)
	if format == 'a' { // addresses, with the symbols they are in
		units = engine.FormatUnits(data, unit, 'u')
		for i, u := range units {
			n, _ := strconv.ParseUint(u, 10, 64)
			units[i] = d.labelled(n)
		}
	}
	for i, u := range units {
		if i%perLine == 0 {
			if i > 0 {
				d.printf("\n")
			}
			d.printf("%s:", d.labelled(addr+uint64(i*unit)))
		}
		d.printf("\t%s", u)
	}
	d.printf("\n")
	d.noteExamined(addr+uint64(len(data)-unit), data[len(data)-unit:])
	d.examined.next, d.examined.valid = addr+uint64(len(data)), true
	return false
}

// noteExamined sets gdb's $_ to the address of the last unit x showed (a pointer to an
// integer of its size) and $__ to its contents.
func (d *Debugger) noteExamined(addr uint64, unit []byte) {
	ctype := map[int]string{1: "int8_t", 2: "int16_t", 4: "int32_t", 8: "int64_t"}[len(unit)]
	if ctype == "" {
		return
	}
	var u uint64
	for i := len(unit) - 1; i >= 0; i-- { // little-endian, as the targets that x reads here
		u = u<<8 | uint64(unit[i])
	}
	shift := 64 - 8*uint(len(unit))
	d.values.SetConvenience("_", engine.Variable{Name: "$_", Value: d.labelled(addr), Type: ctype + " *"})
	d.values.SetConvenience("__", engine.Variable{Name: "$__", Value: strconv.FormatInt(int64(u<<shift)>>shift, 10), Type: ctype})
}

// address reads an address argument: a number, $REGISTER, a value from the history or an
// expression (&counter).
func (d *Debugger) address(arg string) (uint64, error) {
	if arg == "" {
		return 0, fmt.Errorf("Argument required (starting display address).")
	}
	expr, err := d.values.Substitute(arg)
	if err != nil {
		return 0, err
	}
	a, err := d.s.Address(d.frame, expr)
	if err != nil {
		return 0, fmt.Errorf("%s", explain(err))
	}
	return d.loadedAddress(a), nil // before the run a number is the file's address, as gdb shows them
}

// cmdSet handles `set $REG = VALUE` and `set $NAME = EXPR` (a convenience variable, for
// any name that is not a register's), and the settings `set context on|off`, `set listsize
// N` and `set print pretty on|off`.
func cmdSet(d *Debugger, args string) bool {
	if word, val, _ := strings.Cut(args, " "); word != "" && !strings.HasPrefix(word, "$") {
		return d.setting(word, strings.TrimSpace(val))
	}
	lhs, rhs, ok := cutAssign(args)
	if !ok || !strings.HasPrefix(lhs, "$") {
		d.fail("Usage: set $REGISTER = VALUE or set $NAME = EXPR (variables are changed with set var).\n")
		return false
	}
	if err := d.setDollar(lhs[1:], rhs); err != nil {
		d.fail("%s\n", explain(err))
	}
	return false
}

// setDollar sets register name, or else the convenience variable name, to the value of rhs.
func (d *Debugger) setDollar(name, rhs string) error {
	if i := strings.IndexAny(name, ".[-"); i > 0 && validName(name[:i]) && !d.isRegister(name[:i]) { // $v.x = 1
		if v, ok := d.values.Convenience(name[:i]); ok && v.Kept != nil {
			return fmt.Errorf("polydbg sets a convenience variable whole: set $%s = EXPR", name[:i])
		}
		return errors.New("Attempt to extract a component of a value that is not a structure.") // gdb's
	}
	if _, conv := d.values.Convenience(name); conv || !d.isRegister(name) {
		if !validName(name) {
			return fmt.Errorf("Invalid convenience variable name \"$%s\".", name)
		}
		v, err := d.eval(rhs, false)
		if err != nil {
			return err
		}
		t := strings.TrimSpace(v.Type)
		switch { // an array of the program's is its first element's address, a function its own, as gdb keeps them
		case strings.HasSuffix(t, "]") && v.Kept != nil:
			if p, perr := d.eval("&("+rhs+")[0]", false); perr == nil {
				v = p
			}
		case strings.HasPrefix(v.Value, "{"+t+"} "):
			if p, perr := d.eval("&("+rhs+")", false); perr == nil {
				v = p
			}
		}
		d.values.SetConvenience(name, v)
		return nil
	}
	v, err := strconv.ParseInt(rhs, 0, 64)
	if err != nil {
		u, uerr := engine.ParseAddress(rhs)
		if uerr != nil { // an expression: $pc + 4, $rax * 2
			x, xerr := d.eval(rhs, false)
			n, isInt := engine.IntegerOf(x.Value)
			if xerr != nil || !isInt {
				return fmt.Errorf("Invalid number %q.", rhs)
			}
			u = uint64(n)
		}
		v = int64(u)
	}
	return d.s.WriteRegister(name, uint64(v))
}

// isRegister says the target has a register of that name ($pc, $rax, $eax...).
func (d *Debugger) isRegister(name string) bool {
	if name == "pc" || name == "sp" || name == "fp" || name == "ps" { // gdb's aliases
		return !d.indexedPCs()
	}
	if v, err := d.s.Evaluate(d.frame, "$"+name, engine.EvalMode{Pure: true}); err == nil && v.Type != "void" { // void: a variable never set
		return true
	}
	regs, err := d.s.Registers()
	if err != nil {
		return false
	}
	return slices.ContainsFunc(regs, func(r engine.Register) bool { return r.Name == name })
}

// validName says a convenience variable's name is a C identifier.
func validName(name string) bool {
	if name == "" || name[0] >= '0' && name[0] <= '9' {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c != '_' && (c < 'a' || c > 'z') && (c < 'A' || c > 'Z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

func (d *Debugger) setting(name, val string) bool {
	switch {
	case name == "args":
		if err := d.setArgs(val); err != nil {
			d.fail("%v\n", err)
		}
	case name == "environment" || name == "env":
		d.setEnvironment(val)
	case d.setQuiet(name, val): // the settings a script sets without asking anything of them
	case name == "substitute-path":
		d.setSubstitutePath(val)
	case name == "logging":
		d.setLogging(val)
	case strings.HasPrefix("context", name):
		d.setOnOff(&d.context, val)
	case strings.HasPrefix("listsize", name):
		n, ok := atoi(val)
		if !ok || n < 1 {
			d.fail("Usage: set listsize N (N > 0).\n")
			return false
		}
		d.listLines = n
	case name == "print" || name == "p":
		opt, arg, _ := strings.Cut(val, " ")
		arg = strings.TrimSpace(arg)
		switch {
		case opt != "" && strings.HasPrefix("pretty", opt):
			d.setOnOff(&d.pretty, arg)
		case len(opt) >= 2 && strings.HasPrefix("object", opt):
			if d.setOnOff(&d.limits.Object, arg); !d.failed {
				d.s.SetPrintLimits(d.limits)
			}
		case len(opt) >= 2 && strings.HasPrefix("elements", opt):
			d.setLimit(&d.limits.Elements, arg)
		case len(opt) >= 2 && strings.HasPrefix("repeats", opt):
			d.setLimit(&d.limits.Repeats, arg)
		case opt == "frame-arguments":
			d.setEnum(&d.frameArgs, frameArgModes, arg)
		case opt == "frame-info":
			d.setEnum(&d.frameInfo, frameInfoModes, arg)
		case opt == "array-indexes" || opt == "null-stop" || opt == "raw-values":
			on := map[string]*bool{"array-indexes": &d.limits.ArrayIndexes, "null-stop": &d.limits.NullStop,
				"raw-values": &d.limits.Raw}[opt]
			if d.setOnOff(on, arg); !d.failed {
				d.s.SetPrintLimits(d.limits)
			}
		case len(opt) >= 3 && (strings.HasPrefix("address", opt) || strings.HasPrefix("symbol", opt) || strings.HasPrefix("union", opt)):
			hide := map[byte]*bool{'a': &d.limits.HideAddresses, 's': &d.limits.HideSymbols, 'u': &d.limits.HideUnions}[opt[0]]
			show := !*hide
			if d.setOnOff(&show, arg); !d.failed { // (gdb's settings say what is shown)
				*hide = !show
				d.s.SetPrintLimits(d.limits)
			}
		default:
			d.fail("Undefined set print command: %q. (set print pretty on|off, object on|off, elements N, repeats N, array-indexes on|off, null-stop on|off, raw-values on|off, address on|off, symbol on|off, union on|off)\n", opt)
		}
	default:
		d.fail("Usage: set $REGISTER = VALUE, set context on|off, set listsize N or set print pretty on|off (variables are changed by the program, not the debugger).\n")
	}
	return false
}

// setLimit sets a print limit from gdb's words for it: a number, 0 or unlimited for none;
// the session's target follows it at once (and later sessions' when they are made).
func (d *Debugger) setLimit(limit *int, val string) {
	n, ok := d.readLimit(val)
	if !ok {
		return
	}
	*limit = n
	d.s.SetPrintLimits(d.limits)
}

// setOnOff sets a setting from gdb's words for it: on (or nothing, or 1), off (or 0).
// readLimit reads gdb's words for a limit: a number, 0 or unlimited for none (0); false,
// the error said, for others.
func (d *Debugger) readLimit(val string) (int, bool) {
	switch n, err := strconv.Atoi(val); {
	case val == "":
		d.fail("Argument required (integer to set it to, or \"unlimited\").\n")
	case val == "unlimited":
		return 0, true
	case err != nil:
		d.fail("No symbol %q in current context.\n", val)
	case n < 0:
		d.fail("integer %d out of range\n", n)
	default:
		return n, true
	}
	return 0, false
}

func (d *Debugger) setOnOff(setting *bool, val string) {
	switch val {
	case "on", "1", "":
		*setting = true
	case "off", "0":
		*setting = false
	default:
		d.fail("\"on\" or \"off\" expected.\n")
	}
}

// labelled is an address as gdb's x shows it: with the symbol that holds it, when one does
// ("0x555555558020 <vals+4>").
func (d *Debugger) labelled(addr uint64) string {
	shown := d.fileAddress(addr) // before the run, the file's, as gdb
	if name, _, ok, err := d.s.SymbolAt(addr); err == nil && ok {
		return fmt.Sprintf("%#x <%s>", shown, name)
	}
	return fmt.Sprintf("%#x", shown)
}

// examineStrings is x/s: count C strings from addr, each up to its NUL (200 bytes at most,
// as gdb's print elements).
func (d *Debugger) examineStrings(addr uint64, count int) {
	for range count {
		text, ended, ok := d.cString(addr, 200)
		if !ok {
			d.printf("%s:\t<error: Cannot access memory at address %#x>\n", d.labelled(addr), addr)
			return
		}
		units := make([]uint32, len(text))
		for i, c := range text {
			units[i] = uint32(c)
		}
		d.printf("%s:\t%s\n", d.labelled(addr), cstring.UnitsText(units, "", !ended, len(units), d.repeatsLimit()))
		// gdb's $_ is the last string's address, as an int8_t *; its $__ is not read (void)
		d.values.SetConvenience("_", engine.Variable{Name: "$_", Value: d.labelled(addr), Type: "int8_t *"})
		d.values.SetConvenience("__", engine.Variable{Name: "$__", Value: "void", Type: "void"})
		addr += uint64(len(text)) + 1
	}
}

// examineWideStrings is x/hs and x/ws: count strings of width-byte characters from addr.
func (d *Debugger) examineWideStrings(addr uint64, count, width int) {
	prefix := map[int]string{2: "u", 4: "U"}[width]
	for range count {
		units, ended, ok := d.wideString(addr, width, 200)
		if !ok {
			d.printf("%s:\t<error: Cannot access memory at address %#x>\n", d.labelled(addr), addr)
			return
		}
		d.printf("%s:\t%s\n", d.labelled(addr), cstring.UnitsText(units, prefix, !ended, len(units), d.repeatsLimit()))
		addr += uint64((len(units) + 1) * width)
	}
}

// repeatsLimit is set print repeats as a run's length to pass (unlimited: any).
func (d *Debugger) repeatsLimit() int {
	if d.limits.Repeats <= 0 {
		return int(^uint(0) >> 1)
	}
	return d.limits.Repeats
}

// wideString reads a string of width-byte characters at addr, at most max of them.
func (d *Debugger) wideString(addr uint64, width, max int) (units []uint32, ended, ok bool) {
	for len(units) < max && !ended {
		at := addr + uint64(len(units)*width)
		b, err := d.s.ReadMemory(at, width)
		if err != nil || len(b) < width {
			return units, false, len(units) > 0
		}
		u := uint32(binary.LittleEndian.Uint16(b)) // (as x reads every unit: the targets here are little-endian)
		if width == 4 {
			u = binary.LittleEndian.Uint32(b)
		}
		if u == 0 {
			ended = true
			break
		}
		units = append(units, u)
	}
	return units, ended, true
}

// examineInstructions is x/i: count instructions from addr, "=>" at the selected frame's pc.
func (d *Debugger) examineInstructions(addr uint64, count int) {
	dbg := d.debuggee()
	if dbg == nil {
		d.fail("This target cannot be disassembled here.\n")
		return
	}
	ins, err := dbg.Disassemble(d.disasmContext(), addr, count+1) // one more: where x goes on
	if err != nil {
		d.fail("%s\n", explain(err))
		return
	}
	next := uint64(0)
	if len(ins) > count {
		next, ins = ins[count].PC, ins[:count]
	}
	if len(ins) == 0 { // no code there, as gdb says it
		d.printf("   %s:\tCannot access memory at address %#x\n", d.labelled(addr), addr)
		return
	}
	var cur uint64
	has := false
	if fs, err := d.s.Stack(); err == nil && d.frame < len(fs) {
		cur, has = fs[d.frame].Location.PC, fs[d.frame].Location.HasPC
	}
	for _, in := range ins {
		mark := "   "
		if has && in.PC == cur {
			mark = "=> "
		}
		_, text := d.fileAddresses(in.PC, in.Text)
		d.printf("%s%s:\t%s\n", mark, d.labelled(in.PC), text)
	}
	last := ins[len(ins)-1] // x goes on after it; $_ is its address, as gdb's (a byte's)
	if next == 0 {
		next = last.PC + uint64(max(last.Size, 1))
	}
	d.examined.next, d.examined.valid = next, true
	d.values.SetConvenience("_", engine.Variable{Name: "$_", Value: d.labelled(last.PC), Type: "int8_t *"})
	d.values.SetConvenience("__", engine.Variable{Name: "$__", Value: "void", Type: "void"}) // gdb's is not read
}

// cString reads the C string at addr, 16 bytes at a time and never across a page (a string
// may end just before unreadable memory), up to max bytes: its bytes, whether its NUL was reached, and false
// when not even its first bytes could be read.
func (d *Debugger) cString(addr uint64, max int) (text []byte, ended, ok bool) {
	for len(text) < max && !ended {
		at := addr + uint64(len(text))
		n := min(16, int(4096-at%4096)) // not across a page: the next one may not be mapped
		chunk, err := d.s.ReadMemory(at, n)
		if err != nil || len(chunk) == 0 {
			return text, false, len(text) > 0
		}
		for _, c := range chunk {
			if c == 0 {
				ended = true
				break
			}
			text = append(text, c)
		}
	}
	return text[:min(len(text), max)], ended, true
}
