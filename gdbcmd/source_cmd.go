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
		d.printf("source command requires file name of file to source.\n")
		return false
	}
	if d.sourceDepth >= maxSourceDepth {
		d.printf("%s: files sourced %d deep; not read.\n", args, maxSourceDepth)
		return false
	}
	f, err := os.Open(args)
	if err != nil {
		d.printf("%s: No such file or directory.\n", args)
		return false
	}
	defer f.Close()
	d.sourceDepth++
	defer func() { d.sourceDepth--; d.lastCmd = "" }() // Enter after source does not repeat its last line
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 4096), MaxLine)
	for sc.Scan() {
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
	}
	if err := sc.Err(); err != nil {
		d.printf("%s: %v\n", args, err)
	}
	return false
}
