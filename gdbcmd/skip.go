package gdbcmd

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/polydbg/polydbg/engine"
)

// gdb's skip: functions and files that step passes over, as if it were next there
// (engine.StepFilter). skip [function] NAME, skip file [FILE], skip -fu/-function NAME,
// -fi/-file FILE, -gfi/-gfile GLOB, -rfu/-rfunction REGEX; info skip; skip delete, enable
// and disable; kept across runs.

// skipEntry is one skip.
type skipEntry struct {
	num      int
	on       bool
	file, fn string
	glob, re bool
	fnRE     *regexp.Regexp
}

// matches says whether e passes over function fn of file.
func (e skipEntry) matches(fn, file string) bool {
	if !e.on {
		return false
	}
	if e.file != "" {
		switch {
		case e.glob:
			full, _ := filepath.Match(e.file, file)
			base, _ := filepath.Match(e.file, filepath.Base(file))
			if !full && !base {
				return false
			}
		case !engine.SourceFileIs(file, e.file):
			return false
		}
	}
	switch {
	case e.re:
		return e.fnRE.MatchString(fn)
	case e.fn != "":
		return e.fn == fn
	}
	return true
}

func cmdSkip(d *Debugger, args string) bool {
	args = strings.TrimSpace(args)
	word, rest, _ := strings.Cut(args, " ")
	rest = strings.TrimSpace(rest)
	switch word {
	case "delete", "enable", "disable":
		d.skipChange(word, rest)
		return false
	case "file":
		if rest == "" {
			here, ok := d.here()
			if !ok || here.File == "" {
				d.fail("No default file now.\n")
				return false
			}
			rest = d.fileName(here.File)
		}
		d.addSkip(skipEntry{file: rest})
		return false
	case "function":
		args = rest
	}
	if strings.HasPrefix(args, "-") {
		d.skipOptions(args)
		return false
	}
	if args == "" {
		here, ok := d.here()
		if !ok || here.Func == "" {
			d.fail("No default function now.\n")
			return false
		}
		args = here.Func
	}
	d.addSkip(skipEntry{fn: args})
	return false
}

// skipOptions is skip with gdb's options: -fi FILE, -gfi GLOB, -fu NAME, -rfu REGEX.
func (d *Debugger) skipOptions(args string) {
	var e skipEntry
	f := strings.Fields(args)
	for i := 0; i < len(f); i++ {
		opt := f[i]
		if i+1 >= len(f) {
			d.fail("Missing value for %s option.\n", opt)
			return
		}
		val := f[i+1]
		i++
		switch opt {
		case "-fi", "-file":
			e.file = val
		case "-gfi", "-gfile":
			e.file, e.glob = val, true
		case "-fu", "-function":
			e.fn = val
		case "-rfu", "-rfunction":
			re, err := regexp.Compile(val)
			if err != nil {
				d.fail("regexp: %v\n", err)
				return
			}
			e.fn, e.re, e.fnRE = val, true, re
		default:
			d.fail("Invalid skip option: %s\n", opt)
			return
		}
	}
	d.addSkip(e)
}

// addSkip adds e, says so in gdb's words and makes the session pass over it.
func (d *Debugger) addSkip(e skipEntry) {
	if _, ok := d.s.Target().(engine.StepFilterer); !ok {
		d.fail("skip: this target's step cannot pass over functions.\n")
		return
	}
	d.skipsMade++ // numbers are never given twice, as gdb's
	e.on, e.num = true, d.skipsMade
	d.skips = append(d.skips, e)
	switch {
	case e.file != "" && e.fn != "":
		d.printf("%s %s in %s %s will be skipped when stepping.\n", map[bool]string{false: "Function", true: "Function(s)"}[e.re],
			e.fn, map[bool]string{false: "file", true: "file(s)"}[e.glob], e.file)
	case e.file != "":
		d.printf("%s %s will be skipped when stepping.\n", map[bool]string{false: "File", true: "File(s)"}[e.glob], e.file)
	default:
		d.printf("%s %s will be skipped when stepping.\n", map[bool]string{false: "Function", true: "Function(s)"}[e.re], e.fn)
	}
	d.applySkips()
}

// skipChange is skip delete, enable and disable of the entries numbered (all without).
func (d *Debugger) skipChange(how, args string) {
	ids, err := breakpointNumbers(args)
	if err != nil {
		d.fail("%v\n", err)
		return
	}
	found := false
	for i := 0; i < len(d.skips); i++ {
		if len(ids) > 0 && !slices.Contains(ids, d.skips[i].num) {
			continue
		}
		found = true
		switch how {
		case "delete":
			d.skips = slices.Delete(d.skips, i, i+1)
			i--
		default:
			d.skips[i].on = how == "enable"
		}
	}
	if !found && len(ids) > 0 {
		d.fail("No skiplist entries found with number %s.\n", strings.TrimSpace(args))
		return
	}
	d.applySkips()
}

// infoSkip is gdb's info skip [N...]: the table of skips.
func (d *Debugger) infoSkip(args string) {
	ids, err := breakpointNumbers(args)
	if err != nil {
		d.fail("%v\n", err)
		return
	}
	var rows []skipEntry
	for _, e := range d.skips {
		if len(ids) == 0 || slices.Contains(ids, e.num) {
			rows = append(rows, e)
		}
	}
	if len(rows) == 0 {
		if len(ids) > 0 {
			d.printf("No skiplist entries found with number %s.\n", strings.TrimSpace(args))
		} else {
			d.printf("Not skipping any files or functions.\n")
		}
		return
	}
	yn := map[bool]string{true: "y", false: "n"}
	d.printf("%-5s %-3s %4s %-20s %2s %s\n", "Num", "Enb", "Glob", "File", "RE", "Function")
	for _, e := range rows {
		file, fn := e.file, e.fn
		if file == "" {
			file = "<none>"
		}
		if fn == "" {
			fn = "<none>"
		}
		d.printf("%-5s %-3s %4s %-20s %2s %s\n", fmt.Sprint(e.num), yn[e.on], yn[e.glob], file, yn[e.re], fn)
	}
}

// applySkips makes the session's step pass over the enabled skips.
func (d *Debugger) applySkips() {
	if len(d.skips) == 0 {
		d.s.SetStepFilter(nil)
		return
	}
	skips := slices.Clone(d.skips)
	d.s.SetStepFilter(func(fn, file string) bool {
		return slices.ContainsFunc(skips, func(e skipEntry) bool { return e.matches(fn, file) })
	})
}
