package gdbcmd

import (
	"bufio"
	"os"
	"strings"
)

// maxSourceDepth bounds files that source files: one that sources itself ends there.
const maxSourceDepth = 8

// cmdSource is gdb's source FILE: each line of the file run as a command, blank lines and
// # comments skipped; quit in the file ends the session.
func cmdSource(d *Debugger, args string) bool {
	if args == "" {
		d.fail("source command requires file name of file to source.\n")
		return false
	}
	if d.sourceDepth >= maxSourceDepth {
		d.fail("%s: files sourced %d deep; not read.\n", args, maxSourceDepth)
		return false
	}
	f, err := os.Open(args)
	if err != nil {
		d.fail("%s: No such file or directory.\n", args)
		return false
	}
	defer f.Close()
	d.sourceDepth++
	d.sourcing = append(d.sourcing, sourceLine{file: args})
	defer func() { // Enter after source does not repeat its last line
		d.sourceDepth--
		d.sourcing = d.sourcing[:len(d.sourcing)-1]
		d.lastCmd = ""
	}()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), MaxLine)
	for n := 1; sc.Scan(); n++ {
		d.sourcing[len(d.sourcing)-1].line = n
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		d.release() // the command runs as if typed: it holds the output printer itself
		quit := d.Exec(line, false)
		d.hold()
		if quit {
			return true
		}
		if d.failed { // as gdb: an error ends the file (and the files that source it)
			return false
		}
	}
	if err := sc.Err(); err != nil {
		d.fail("%s: %v\n", args, err)
	}
	return false
}
