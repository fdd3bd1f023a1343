package gdbcmd

import (
	"cmp"
	"context"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/launch"
)

// gdb's settings that scripts and .gdbinit files set as a matter of course: confirm,
// pagination, height, width, verbose, disassembly-flavor. confirm off answers gdb's
// questions yes without asking them, disassembly-flavor intel is objdump's Intel syntax;
// polydbg never pages, so pagination, height and width are kept to be shown, and verbose
// changes nothing it says.

// settings are the values set.
type settings struct {
	noConfirm, noPagination, verbose, intel bool
	height, width                           int // 0: unlimited
	solibStops                              int // stop-on-solib-events
	unwindOnSignal                          bool
	// debugDirs is debug-file-directory, as set ("" for none); unset (nil) it is
	// the default, launch.DefaultDebugDir.
	debugDirs *string
	// debuginfod is debuginfod enabled as set: polydbg downloads nothing, whatever it is.
	debuginfod string
	// followFork is follow-fork-mode ("": parent).
	followFork string
}

// forkModes are follow-fork-mode's values, in the order gdb lists them (parent is the
// default).
var forkModes = []string{"child", "parent"}

// setQuiet sets one of those settings; false when name is none of them.
func (d *Debugger) setQuiet(name, val string) bool {
	var on bool
	switch name {
	case "confirm", "pagination", "verbose":
		d.setOnOff(&on, val)
		if d.failed {
			return true
		}
		switch name {
		case "confirm":
			d.settings.noConfirm = !on
		case "pagination":
			d.settings.noPagination = !on
		default:
			d.settings.verbose = on
		}
	case "height", "width":
		n, ok := d.readLimit(val)
		if !ok {
			return true
		}
		if name == "height" {
			d.settings.height = n
		} else {
			d.settings.width = n
		}
	case "unwindonsignal": // a called function's signal: abandon the call (evalWith)
		d.setOnOff(&d.settings.unwindOnSignal, val)
	case "stop-on-solib-events":
		n, err := strconv.Atoi(val)
		if err != nil {
			d.fail("Invalid number \"%s\".\n", val)
			return true
		}
		d.settings.solibStops = n
		if err := d.s.StopOnLibraryEvents(n != 0); err != nil {
			d.fail("%s\n", explain(err))
		}
	case "debug-file-directory": // where a stripped library's debug file is looked for
		d.settings.debugDirs = &val
		d.s.SetDebugDirs(d.debugDirs())
	case "debuginfod": // accepted as gdb scripts set it; polydbg has no debuginfod client
		what, v, _ := strings.Cut(val, " ")
		switch v = strings.TrimSpace(v); {
		case what != "enabled":
			d.fail("Undefined set debuginfod command: \"%s\".  Try \"help set debuginfod\".\n", what)
		case v == "on" || v == "off" || v == "ask":
			d.settings.debuginfod = v
		default:
			d.fail("Undefined item: \"%s\".\n", v)
		}
	case "follow-fork-mode": // which process a fork leaves under the debugger
		if d.setEnum(&d.settings.followFork, forkModes, val) {
			d.s.FollowForkChild(d.settings.followFork == "child")
		}
	case "detach-on-fork": // polydbg debugs one process at a time: the other is let go
		var detach bool
		if d.setOnOff(&detach, val); !d.failed && !detach {
			d.fail("polydbg debugs one process of a fork: detach-on-fork stays on.\n")
		}
	case "disassembly-flavor":
		switch val {
		case "intel", "att":
			d.settings.intel = val == "intel"
		case "":
			d.fail("Requires an argument. Valid arguments are att, intel.\n")
		default:
			d.fail("Undefined item: %q.\n", val)
		}
	default:
		return false
	}
	return true
}

// showQuiet says one of those settings in gdb's words; false when name is none of them.
func (d *Debugger) showQuiet(name string) bool {
	onOff := func(off bool) string { return onOff(!off) }
	limit := func(n int) string {
		if n == 0 {
			return "unlimited"
		}
		return strconv.Itoa(n)
	}
	switch name {
	case "confirm":
		d.printf("Whether to confirm potentially dangerous operations is %s.\n", onOff(d.settings.noConfirm))
	case "pagination":
		d.printf("State of pagination is %s.\n", onOff(d.settings.noPagination))
	case "verbose":
		if d.settings.verbose {
			d.printf("Verbose printing of informational messages is on.\n")
		} else {
			d.printf("Verbosity is off.\n")
		}
	case "height":
		d.printf("Number of lines gdb thinks are in a page is %s.\n", limit(d.settings.height))
	case "width":
		d.printf("Number of characters gdb thinks are in a line is %s.\n", limit(d.settings.width))
	case "stop-on-solib-events":
		d.printf("Stopping for shared library events is %d.\n", d.settings.solibStops)
	case "unwindonsignal":
		d.printf("Unwinding of stack if a signal is received while in a call dummy is %s.\n", onOff(!d.settings.unwindOnSignal))
	case "debug-file-directory":
		dirs := launch.DefaultDebugDir
		if d.settings.debugDirs != nil {
			dirs = *d.settings.debugDirs
		}
		d.printf("The directory where separate debug symbols are searched for is \"%s\".\n", dirs)
	case "debuginfod": // (show debuginfod enabled)
		d.printf("Debuginfod functionality is currently set to \"%s\".\n", cmp.Or(d.settings.debuginfod, "off"))
	case "follow-fork-mode":
		d.printf("Debugger response to a program call of fork or vfork is \"%s\".\n", cmp.Or(d.settings.followFork, "parent"))
	case "detach-on-fork":
		d.printf("Whether gdb will detach the child of a fork is on.\n")
	case "disassembly-flavor":
		flavor := "att"
		if d.settings.intel {
			flavor = "intel"
		}
		d.printf("The disassembly flavor is \"%s\".\n", flavor)
	default:
		return false
	}
	return true
}

// debugDirs are the folders of debug-file-directory (gdb's colon-separated list): nil
// while it is not set.
func (d *Debugger) debugDirs() []string {
	if d.settings.debugDirs == nil {
		return nil
	}
	return splitDebugDirs(*d.settings.debugDirs)
}

func splitDebugDirs(val string) []string {
	dirs := []string{}
	for _, dir := range strings.Split(val, ":") {
		if dir != "" {
			dirs = append(dirs, dir)
		}
	}
	return dirs
}

// DebugDirsSet reads the folders a command line "set debug-file-directory DIRS" sets:
// what a debugger started with that setting (gdb's -iex) reads its program and libraries
// with, before any command runs.
func DebugDirsSet(line string) ([]string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimSpace(line), "set debug-file-directory")
	if !ok || rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return nil, false
	}
	return splitDebugDirs(strings.TrimSpace(rest)), true
}

// disasmContext is the context a disassembly runs in: Intel's syntax when set.
func (d *Debugger) disasmContext() context.Context {
	if d.settings.intel {
		return launch.IntelSyntax(context.Background())
	}
	return context.Background()
}
