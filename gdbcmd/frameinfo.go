package gdbcmd

// How frames are shown, as gdb's set print frame-arguments and set print frame-info (and
// backtrace's -frame-arguments and -frame-info for one backtrace).

import (
	"cmp"
	"slices"
	"strings"

	"github.com/polydbg/polydbg/engine"
)

// frameArgModes and frameInfoModes are the settings' values, the default first.
var (
	frameArgModes  = []string{"scalars", "all", "none", "presence"}
	frameInfoModes = []string{"auto", "source-line", "location", "source-and-location", "location-and-address", "short-location"}
)

// setEnum sets a setting of a few named values (to the one val names, or starts; gdb's
// words for a bad one) and reports whether it did.
func (d *Debugger) setEnum(setting *string, modes []string, val string) bool {
	if val == "" {
		d.fail("Requires an argument. Valid arguments are %s.\n", strings.Join(modes, ", "))
		return false
	}
	var found []string
	for _, m := range modes {
		if m == val {
			found = []string{m}
			break
		}
		if strings.HasPrefix(m, val) {
			found = append(found, m)
		}
	}
	switch len(found) {
	case 0:
		d.fail("Undefined item: %q.\n", val)
	case 1:
		*setting = found[0]
		return true
	default:
		d.fail("Ambiguous item %q.\n", val)
	}
	return false
}

// frameArgsText is a frame's arguments as frame-arguments shows them: all of them; the
// scalars, a struct, union or array as "..." (gdb's default); only their names; "..." for
// all of them (presence).
func (d *Debugger) frameArgsText(vars []engine.Variable) string {
	mode := cmp.Or(d.frameArgs, frameArgModes[0])
	switch mode {
	case "presence":
		if len(vars) > 0 {
			return "..."
		}
		return ""
	case "all":
		return engine.FormatArgs(vars)
	}
	shown := slices.Clone(vars)
	for i, v := range shown {
		// scalars: a struct, union or array (a Kite list or map) as "...", a frame line stays
		// one short line; none: every value
		aggregate := v.Ref > 0 && (strings.HasPrefix(v.Value, "{") || strings.HasPrefix(v.Value, "[") ||
			strings.HasPrefix(v.Value, "@0x") && strings.Contains(v.Value, ": {")) // a C++ reference to one
		if mode == "none" || aggregate {
			shown[i].Value = "..."
		}
		if head, _, ok := strings.Cut(v.Value, " = {"); ok && mode != "none" && strings.HasPrefix(v.Value, "std::") {
			shown[i].Value = head + " = {...}" // a container as libstdc++'s printer shows it: its size, not its elements
		}
	}
	return engine.FormatArgs(shown)
}

// printFrame shows frame f as a backtrace (bt) or a frame selection does, by frame-info:
// its location line, its source line, or both (auto: both for a selection, the location
// for a backtrace).
func (d *Debugger) printFrame(f engine.Frame, bt bool) {
	mode := cmp.Or(d.frameInfo, frameInfoModes[0])
	if mode == "auto" {
		mode = map[bool]string{false: "source-and-location", true: "location"}[bt]
	}
	mid := d.frameMidLine(f)
	if mode != "source-line" {
		d.printf("#%-2d %s\n", f.Index, d.frameLineAs(f, mid, mode))
	}
	if mode != "source-line" && mode != "source-and-location" {
		return
	}
	if mode == "source-line" && mid && f.Location.HasPC && !d.indexedPCs() { // as stepi shows a line it is inside
		if text, ok := d.s.SourceLine(f.Location.File, f.Location.Line); ok {
			d.printf("%s\t%d\t%s\n", d.pcText(f.Location.PC), f.Location.Line, d.colour(f.Location.File, text))
			return
		}
	}
	d.showLine(f.Location.File, f.Location.Line)
}

// showFrameMode is show print frame-arguments and show print frame-info, in gdb's words.
func (d *Debugger) showFrameMode(which string) {
	if which == "frame-arguments" {
		d.printf("Printing of non-scalar frame arguments is %q.\n", cmp.Or(d.frameArgs, frameArgModes[0]))
		return
	}
	d.printf("Printing of frame information is %q.\n", cmp.Or(d.frameInfo, frameInfoModes[0]))
}
