package gdbcmd

import (
	"os"
	"slices"
	"strings"
)

// Where source files are looked for when they are not where the program says: gdb's
// directory, show directories, set substitute-path, unset substitute-path and show
// substitute-path, kept across runs (engine.SourcePath).

// cmdDirectory is gdb's directory [DIR...]: the directories put first in the search path,
// or (without any) the path emptied, after gdb's question to a person.
func cmdDirectory(d *Debugger, args string) bool {
	dirs := strings.Fields(args)
	if len(dirs) == 0 {
		if d.fromUser() && !d.query("Reinitialize source path to empty? ") {
			return false
		}
		d.srcPath.Dirs = nil
	} else {
		for _, dir := range dirs {
			if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
				d.printf("Warning: %s: No such file or directory.\n", dir)
			}
		}
		d.srcPath.Dirs = append(dirs, slices.DeleteFunc(d.srcPath.Dirs, func(x string) bool { return slices.Contains(dirs, x) })...)
	}
	d.s.SetSourcePath(d.srcPath)
	if d.fromUser() {
		d.showDirectories()
	}
	return false
}

func (d *Debugger) showDirectories() {
	d.printf("Source directories searched: %s\n", strings.Join(append(slices.Clone(d.srcPath.Dirs), "$cdir", "$cwd"), ":"))
}

// setSubstitutePath is gdb's set substitute-path FROM TO.
func (d *Debugger) setSubstitutePath(args string) {
	f := strings.Fields(args)
	switch {
	case len(f) < 2:
		d.fail("Incorrect usage, too few arguments in command\n")
		return
	case len(f) > 2:
		d.fail("Incorrect usage, too many arguments in command\n")
		return
	}
	i := slices.IndexFunc(d.srcPath.Rules, func(r [2]string) bool { return r[0] == f[0] })
	if i >= 0 {
		d.srcPath.Rules[i][1] = f[1]
	} else {
		d.srcPath.Rules = append(d.srcPath.Rules, [2]string{f[0], f[1]})
	}
	d.s.SetSourcePath(d.srcPath)
}

// unsetSubstitutePath is gdb's unset substitute-path [FROM]: one rule, or all of them
// after gdb's question.
func (d *Debugger) unsetSubstitutePath(from string) {
	if from == "" {
		if !d.query("Delete all source path substitution rules? ") {
			return
		}
		d.srcPath.Rules = nil
	} else {
		n := len(d.srcPath.Rules)
		d.srcPath.Rules = slices.DeleteFunc(d.srcPath.Rules, func(r [2]string) bool { return r[0] == from })
		if len(d.srcPath.Rules) == n {
			d.fail("No substitution rule defined for `%s'\n", from)
			return
		}
	}
	d.s.SetSourcePath(d.srcPath)
}

func (d *Debugger) showSubstitutePath() {
	d.printf("List of all source path substitution rules:\n")
	for _, r := range d.srcPath.Rules {
		d.printf("  `%s' -> `%s'.\n", r[0], r[1])
	}
}

// noSource says, in place of a line of a file that cannot be read, gdb's words: the error
// the first time, "in FILE" while no other file's lines are shown in between (gdb's
// last_source_visited).
func (d *Debugger) noSource(file string, line int) {
	name := d.fileName(file)
	if d.lastSource == file && d.lastSourceMissing {
		d.printf("%d\tin %s\n", line, name)
		return
	}
	d.lastSource, d.lastSourceMissing = file, true
	d.printf("%d\t%s: No such file or directory.\n", line, name)
}

// sourceShown notes that lines of file were shown: a missing file is said to be missing
// again after them.
func (d *Debugger) sourceShown(file string) { d.lastSource, d.lastSourceMissing = file, false }
