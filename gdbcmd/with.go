package gdbcmd

// gdb's settings for one command: with SETTING [VALUE] -- COMMAND, and print's options
// (print -pretty -elements 3 -- EXPR), which are the print settings for that print alone.

import (
	"fmt"
	"strings"

	"github.com/polydbg/polydbg/engine"
)

// shownSettings are the settings with and print's options change for one command: how
// values are shown and what gdb's quiet settings hold.
type shownSettings struct {
	frameArgs, frameInfo string
	pretty, context      bool
	listLines            int
	limits               engine.PrintLimits
	quiet                settings
}

// withSettings are the first words of the settings with may change: those it can put back.
var withSettings = []string{"print", "p", "confirm", "pagination", "height", "width", "verbose",
	"disassembly-flavor", "listsize", "context"}

// cmdWith is gdb's with: the setting changed, the command run, the setting put back
// (also when the command fails). Without a command, the previous command is run again.
func cmdWith(d *Debugger, args string) bool {
	setting, cmd, _ := cutDelimiter(args)
	if setting == "" {
		d.fail("Missing arguments.\n")
		return false
	}
	if word, _, _ := strings.Cut(setting, " "); !isWithSetting(word) {
		d.fail("Undefined set command: %q.  Try \"help set\".\n", word)
		return false
	}
	if cmd == "" {
		d.fail("No previous command to relaunch\n")
		return false
	}
	return d.withSet([]string{setting}, func() bool { return d.exec(cmd) })
}

// isWithSetting reports whether with can change and put back the setting named word.
func isWithSetting(word string) bool {
	for _, s := range withSettings {
		if word == s || len(word) >= 3 && strings.HasPrefix(s, word) {
			return true
		}
	}
	return false
}

// withSet runs do with each of sets ("print pretty on") set, then puts every setting
// back as it was. A set that fails stops there: do is not run.
func (d *Debugger) withSet(sets []string, do func() bool) bool {
	saved := d.saveShown()
	defer d.restoreShown(saved)
	for _, s := range sets {
		d.exec("set " + s)
		if d.failed {
			return false
		}
	}
	return do()
}

func (d *Debugger) saveShown() shownSettings {
	return shownSettings{frameArgs: d.frameArgs, frameInfo: d.frameInfo, pretty: d.pretty, context: d.context, listLines: d.listLines,
		limits: d.limits, quiet: d.settings}
}

func (d *Debugger) restoreShown(s shownSettings) {
	d.pretty, d.context, d.listLines, d.settings = s.pretty, s.context, s.listLines, s.quiet
	d.frameArgs, d.frameInfo = s.frameArgs, s.frameInfo
	if s.limits != d.limits {
		d.limits = s.limits
		d.s.SetPrintLimits(s.limits)
	}
}

// cutDelimiter splits "A -- B" at gdb's "--" (a word of its own); ok is false without one.
func cutDelimiter(s string) (before, after string, ok bool) {
	s = strings.TrimSpace(s)
	if rest, found := strings.CutPrefix(s, "--"); found && (rest == "" || rest[0] == ' ') {
		return "", strings.TrimSpace(rest), true
	}
	if i := strings.Index(s, " -- "); i >= 0 {
		return strings.TrimSpace(s[:i]), strings.TrimSpace(s[i+4:]), true
	}
	if strings.HasSuffix(s, " --") {
		return strings.TrimSpace(strings.TrimSuffix(s, "--")), "", true
	}
	return s, "", false
}

// printOption is one of gdb's print options: the set print setting it stands for, or why
// polydbg does not take it; numeric options need a value, the others take on or off.
type printOption struct {
	name, setting string
	numeric       bool
	ignored       bool // about C++ or pretty-printers: nothing to change in C's output
}

var printOptions = []printOption{
	{name: "address", setting: "address"}, {name: "array"}, {name: "array-indexes", setting: "array-indexes"},
	{name: "elements", setting: "elements", numeric: true}, {name: "max-depth", numeric: true},
	{name: "memory-tag-violations"}, {name: "nibbles"}, {name: "null-stop", setting: "null-stop"},
	{name: "object", setting: "object"}, {name: "pretty", setting: "pretty"}, {name: "raw-values", setting: "raw-values"},
	{name: "repeats", setting: "repeats", numeric: true}, {name: "static-members", ignored: true},
	{name: "symbol", setting: "symbol"}, {name: "union", setting: "union"}, {name: "vtbl", ignored: true},
}

// parsePrintOptions reads print's options before "--" into set print lines ("print
// pretty on"); rest is the expression. Without "--" there are none: "-5" is an expression.
func parsePrintOptions(args string) (sets []string, rest string, err error) {
	opts, expr, ok := cutDelimiter(args)
	if !ok || opts != "" && !strings.HasPrefix(opts, "-") {
		return nil, args, nil
	}
	words := strings.Fields(opts)
	for i := 0; i < len(words); i++ {
		w := words[i]
		o, found := findPrintOption(strings.TrimPrefix(w, "-"))
		if !strings.HasPrefix(w, "-") || !found {
			return nil, "", fmt.Errorf("Unrecognized option at: %s", strings.Join(append(words[i:], "--", expr), " "))
		}
		val := ""
		switch {
		case o.numeric:
			if i+1 >= len(words) {
				return nil, "", fmt.Errorf("-%s requires an argument", o.name)
			}
			i++
			val = words[i]
		case i+1 < len(words) && isOnOff(words[i+1]):
			i++
			val = words[i]
		default:
			val = "on"
		}
		switch {
		case o.ignored:
		case o.setting == "":
			return nil, "", fmt.Errorf("polydbg does not take print -%s (options it takes: -pretty, -elements, -repeats, -array-indexes, -null-stop, -raw-values)", o.name)
		default:
			sets = append(sets, "print "+o.setting+" "+val)
		}
	}
	return sets, expr, nil
}

// findPrintOption finds an option by its name or a prefix only it has.
func findPrintOption(name string) (printOption, bool) {
	var match []printOption
	for _, o := range printOptions {
		if o.name == name {
			return o, true
		}
		if name != "" && strings.HasPrefix(o.name, name) {
			match = append(match, o)
		}
	}
	if len(match) == 1 {
		return match[0], true
	}
	return printOption{}, false
}

func isOnOff(w string) bool {
	switch w {
	case "on", "off", "1", "0", "yes", "no", "enable", "disable":
		return true
	}
	return false
}
