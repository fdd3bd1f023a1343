package gdbcmd

// The call stack as gdb shows it: backtrace, frame, up, down, and the frame line of a stop.

import (
	"cmp"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/polydbg/polydbg/engine"
)

// frameLine is a frame as gdb shows it in a backtrace and when a stop enters a new frame:
// "fact (n=2) at t.c:12". A frame whose pc is in the middle of a line (a caller's, or the
// innermost after finish) starts with its address, "0x000055555555515e in fact (n=3) at
// t.c:12"; on the Kite VM, whose pcs number instructions, it ends with its column instead
// (":5:12"). Code without line information is "0x00007ffff7e5de6e in strlen () from
// /lib/x86_64-linux-gnu/libc.so.6".
func (d *Debugger) frameLine(f engine.Frame, midLine bool) string {
	return d.frameLineAs(f, midLine, "location")
}

// frameLineAs is frameLine as a frame-info mode has it: "short-location" without the file
// and line, "location-and-address" with the address also at a line's start.
func (d *Debugger) frameLineAs(f engine.Frame, midLine bool, mode string) string {
	if f.Dummy {
		return "<function called from gdb>" // the frame of a call the debugger made, as gdb names it
	}
	args := ""
	if vars, err := d.s.FrameArgs(f.Index); err == nil {
		args = d.frameArgsText(vars)
	}
	if mode == "location-and-address" {
		midLine = true
	}
	l := f.Location
	if d.limits.HideAddresses { // print address off: no pc before the frame, as gdb's
		if l.Line == 0 && l.HasPC && f.Module != "" {
			return fmt.Sprintf("%s (%s) from %s", cmp.Or(namedFunc(f), "??"), args, f.Module)
		} else if l.Line == 0 && l.HasPC {
			return fmt.Sprintf("%s (%s)", cmp.Or(namedFunc(f), "??"), args)
		}
		midLine = false
	}
	if l.Line == 0 && l.HasPC {
		if f.Module != "" { // "?? (libc.so.6)" is "?? () from /lib/.../libc.so.6" in gdb's words
			return fmt.Sprintf("%s in %s (%s) from %s", d.pcText(l.PC), cmp.Or(namedFunc(f), "??"), args, f.Module)
		}
		return fmt.Sprintf("%s in %s (%s)", d.pcText(l.PC), cmp.Or(namedFunc(f), "??"), args)
	}
	where := fmt.Sprintf("%s (%s) at %s:%d", f.Func, args, d.fileName(l.File), l.Line)
	if mode == "short-location" {
		where = fmt.Sprintf("%s (%s)", f.Func, args)
	}
	switch {
	case !midLine || !l.HasPC || f.AtInlinedCall:
		return where
	case d.indexedPCs():
		return fmt.Sprintf("%s:%d", where, l.Col)
	}
	return d.pcText(l.PC) + " in " + where
}

// frameMidLine reports whether frame f of the selected thread is in the middle of a line:
// a caller's always (its pc is a return address); the innermost as the last stop said,
// in the thread that stopped, or by its pc in another thread.
func (d *Debugger) frameMidLine(f engine.Frame) bool {
	if f.Index > 0 {
		if fs, err := d.s.Stack(); err == nil && f.Index < len(fs) && fs[f.Index-1].Dummy {
			return d.s.MidStatement(f.Location) // where the program was when the debugger called: its pc
		}
		return true
	}
	if st := d.s.LastStop(); st != nil && (st.ThreadID == 0 || st.ThreadID == d.s.SelectedThread()) {
		return d.midLine
	}
	return d.s.MidStatement(f.Location)
}

// indexedPCs reports whether the target numbers its instructions (the Kite VM).
func (d *Debugger) indexedPCs() bool {
	ix, ok := d.s.Target().(engine.IndexedPCs)
	return ok && ix.PCsAreIndexes()
}

// pcText is an address as gdb prints a frame's: zero-padded to the width of the target's
// program counter (16 digits on x86-64, 8 on a Cortex-M).
func (d *Debugger) pcText(pc uint64) string {
	return fmt.Sprintf("0x%0*x", d.pcWidth(), pc)
}

// pcWidth is the number of hex digits of the target's pc: 16 until its registers can be
// read (the program stopped), then the pc register's.
func (d *Debugger) pcWidth() int {
	if d.pcDigits != 0 {
		return d.pcDigits
	}
	if regs, err := d.s.Registers(); err == nil {
		for _, r := range regs {
			if r.Name == "pc" || r.Name == "rip" || r.Name == "eip" {
				d.pcDigits = 2 * r.Size
				return d.pcDigits
			}
		}
	}
	return 16
}

// cmdBacktrace is gdb's backtrace [full] [N|-N]: the frames (the innermost N, or the
// outermost N), with each frame's locals after it when full.
func cmdBacktrace(d *Debugger, args string) bool {
	if d.notStarted("No stack.") {
		return false
	}
	full, limit := false, 0
	var sets []string // -frame-arguments, -frame-info: the settings for this backtrace
	words := strings.Fields(args)
	for i := 0; i < len(words); i++ {
		f := words[i]
		switch n, ok := atoi(f); {
		case f == "full" || f == "-full":
			full = true
		case (f == "-frame-arguments" || f == "-frame-info") && i+1 < len(words):
			sets = append(sets, "print "+f[1:]+" "+words[i+1])
			i++
		case f == "-no-filters" || f == "-hide": // no frame filters here: nothing to leave out
		case ok && n != 0:
			limit = n
		default:
			d.fail("No symbol %q in current context.\n", f)
			return false
		}
	}
	if len(sets) > 0 {
		return d.withSet(sets, func() bool { return cmdBacktrace(d, strings.Join(backtraceRest(words), " ")) })
	}
	frames, err := d.s.Stack()
	if err != nil {
		d.fail("%s\n", explain(err))
		return false
	}
	shown, more := frames, false
	switch {
	case limit > 0 && limit < len(frames):
		shown, more = frames[:limit], true
	case limit < 0 && -limit < len(frames):
		shown = frames[len(frames)+limit:]
	}
	for _, f := range shown {
		d.printFrame(f, true)
		if full {
			d.frameLocals(f.Index)
		}
	}
	if more {
		d.say("(More stack frames follow...)\n")
	}
	return false
}

// frameLocals prints the locals of frame i (its arguments are in its frame line),
// indented, for backtrace full.
func (d *Debugger) frameLocals(i int) {
	scopes, err := d.s.Scopes(i)
	if err != nil {
		return
	}
	printed := false
	for _, sc := range scopes {
		if sc.Name != "Locals" {
			continue
		}
		vars, err := d.s.Variables(sc.Ref)
		if err != nil {
			continue
		}
		for _, v := range vars {
			if !v.Arg && !v.ConstantBytes {
				d.printf("        %s = %s\n", v.Name, v.Value)
				printed = true
			}
		}
	}
	if !printed {
		d.printf("No locals.\n")
	}
}

func cmdFrame(d *Debugger, args string) bool {
	if rest, ok := strings.CutPrefix(strings.TrimSpace(args), "apply"); ok && (rest == "" || rest[0] == ' ') {
		d.frameApply(rest)
		return false
	}
	n, ok := d.frameArg(args)
	if !ok {
		return false
	}
	return d.selectFrame(n)
}

// frameArg is the frame a frame command's argument names, as gdb's frame and info frame
// take one: none (the selected frame), N or level N, function NAME (its innermost frame);
// false, with the reason said, when it names none.
func (d *Debugger) frameArg(args string) (int, bool) {
	word, rest, _ := strings.Cut(strings.TrimSpace(args), " ")
	rest = strings.TrimSpace(rest)
	switch {
	case word == "":
		return d.frame, true
	case word == "level" && rest == "":
		d.fail("Argument required (expression to compute).\n")
		return 0, false
	case word == "level":
		word = rest
	case word == "function" && rest == "":
		d.fail("Missing function name argument\n")
		return 0, false
	case word == "function":
		frames, err := d.s.Stack()
		if err != nil {
			d.fail("%s\n", explain(err))
			return 0, false
		}
		for i, f := range frames {
			if f.Func == rest {
				return i, true
			}
		}
		if _, err := d.s.Target().ResolveFunction(rest); err != nil {
			d.fail("Function %q not defined.\n", rest)
		} else {
			d.fail("No frame for function %q.\n", rest)
		}
		return 0, false
	}
	n, ok := atoi(word)
	if !ok {
		d.fail("No symbol %q in current context.\n", word)
		return 0, false
	}
	if frames, err := d.s.Stack(); err == nil && (n < 0 || n >= len(frames)) {
		d.fail("No frame at level %s.\n", word)
		return 0, false
	}
	return n, true
}

// cmdUp is gdb's up [N]: N frames outwards, as far as there are.
func cmdUp(d *Debugger, args string) bool {
	n, ok := frameCount(d, args)
	if !ok || d.notStarted("No stack.") {
		return false
	}
	if frames, err := d.s.Stack(); err == nil {
		if d.frame+1 >= len(frames) {
			d.fail("Initial frame selected; you cannot go up.\n")
			return false
		}
		return d.selectFrame(min(d.frame+n, len(frames)-1))
	}
	return d.selectFrame(d.frame + n)
}

// cmdDown is gdb's down [N]: N frames inwards, as far as there are.
func cmdDown(d *Debugger, args string) bool {
	n, ok := frameCount(d, args)
	if !ok || d.notStarted("No stack.") {
		return false
	}
	if d.frame == 0 && d.s.State() == engine.Stopped {
		d.fail("Bottom (innermost) frame selected; you cannot go down.\n")
		return false
	}
	return d.selectFrame(max(d.frame-n, 0))
}

// frameCount is up's and down's N (1 without one).
func frameCount(d *Debugger, args string) (int, bool) {
	if args == "" {
		return 1, true
	}
	n, ok := atoi(args)
	if !ok || n < 0 {
		d.fail("Invalid number %q.\n", args)
		return 0, false
	}
	return n, true
}

func (d *Debugger) selectFrame(n int) bool {
	frames, err := d.s.Stack()
	if err != nil {
		d.fail("%s\n", explain(err))
		return false
	}
	if n < 0 || n >= len(frames) {
		d.fail("No frame at level %d.\n", n)
		return false
	}
	d.frame = n
	f := frames[n]
	d.printFrame(f, false)
	d.listFrom(f.Location.File, f.Location.Line)
	return false
}

// backtraceRest is a backtrace's words without its -frame-arguments and -frame-info.
func backtraceRest(words []string) []string {
	var out []string
	for i := 0; i < len(words); i++ {
		if (words[i] == "-frame-arguments" || words[i] == "-frame-info") && i+1 < len(words) {
			i++
			continue
		}
		out = append(out, words[i])
	}
	return out
}

// namedFunc is the name of a frame's function, "" where no symbol names it (the engine
// calls such a frame by its address, or "?? (libc.so.6)" in a library).
func namedFunc(f engine.Frame) string {
	name := f.Func
	if f.Module != "" {
		name = strings.TrimSuffix(name, " ("+filepath.Base(f.Module)+")")
	}
	if name == "??" || f.Location.HasPC && name == fmt.Sprintf("%#x", f.Location.PC) {
		return ""
	}
	return name
}
