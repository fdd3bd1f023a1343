package gdbcmd

// gdb's search, forward-search and reverse-search: the next (or previous) line of the
// current source file that matches a regular expression, from the last line listed as gdb
// keeps it: the first line list showed, the line a search found, and the start of the file
// again after a stop, a frame selected or a run.

import "regexp"

func cmdForwardSearch(d *Debugger, args string) bool { d.searchSource(args, true); return false }
func cmdReverseSearch(d *Debugger, args string) bool { d.searchSource(args, false); return false }

// searchSource prints the first line after (forward) or before the last line listed that
// matches expr, gdb's POSIX basic syntax (an empty one is the last one used), and makes it
// the last line listed, the next list around it.
func (d *Debugger) searchSource(expr string, forward bool) {
	if expr == "" {
		expr = d.lastSearch
	}
	if expr == "" {
		d.fail("No previous regular expression\n")
		return
	}
	re, err := compileBRE(expr)
	if err != nil {
		d.fail("Invalid regexp: %v\n", err)
		return
	}
	d.lastSearch = expr
	file := d.listFile
	if file == "" {
		file = d.defaultFile()
	}
	src := d.source(file)
	if len(src) == 0 {
		d.fail("No source file.\n")
		return
	}
	if n, ok := matchingLine(src, re, d.lastListed, forward); ok {
		d.printSource(file, n, n, false)
		d.listFrom(file, n)
		d.lastListed = n
		return
	}
	d.fail("Expression not found\n")
}

// matchingLine is the number of the first line of src after line from (before it when
// not forward) that re matches.
func matchingLine(src []string, re *regexp.Regexp, from int, forward bool) (int, bool) {
	step := 1
	if !forward {
		step = -1
	}
	for n := from + step; n >= 1 && n <= len(src); n += step {
		if re.MatchString(src[n-1]) {
			return n, true
		}
	}
	return 0, false
}
