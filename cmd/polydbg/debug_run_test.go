package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// How the next run starts the program (arguments, environment), the shell, the everyday
// settings and what step passes over (skip), as gdb's.

// argsProg prints its arguments, one a line, and ends with their number.
const argsProg = `#include <stdio.h>
int main(int argc, char **argv) {
	for (int i = 1; i < argc; i++)
		printf("[%s]\n", argv[i]);
	return argc;
}
`

// The program's arguments as gdb's: given at start (--args), changed by run ARGS (with a
// shell's quotes, nothing expanded) and set args, kept for the next run, emptied by set
// args alone, said by show args and by "Starting program:" before each run; start ARGS;
// a breakpoint's address after a run is the loaded one. Each against gdb.
func TestProgramArgumentsAsGDB(t *testing.T) {
	pipedAsGDB(t, "program arguments", "args", argsProg, "show args\nrun\nrun x \"y z\" '$HOME' a\\ b\nshow args\nrun\nset args one\nshow args\nbreak 3\n"+
		"run\nprint argc\nprint argv[1]\ninfo breakpoints\ndelete\nkill\nstart two three\nprint argc\nkill\n"+
		"set args\nshow args\nrun\n", "init", "with space")
}

// shell and !, their exit code in $_shell_exitcode, and pwd, as gdb's.
func TestShellAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "shell", downProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, []string{"-ex", "shell echo one; exit 3", "-ex", "print $_shell_exitcode",
		"-ex", "!echo two", "-ex", "print $_shell_exitcode", "-ex", "pwd", "-ex", "shell exit 0"})
	compareLines(t, "shell", dir, ours, theirs)
}

// envProg prints two variables of its environment, and whether it has HOME.
const envProg = `#include <stdio.h>
#include <stdlib.h>
int main(void) {
	const char *a = getenv("PDB_A"), *b = getenv("PDB_B");
	printf("A=%s B=%s HOME=%s\n", a ? a : "(none)", b ? b : "(none)", getenv("HOME") ? "set" : "unset");
	return 0;
}
`

// The program's environment as gdb's: set environment (NAME VALUE, NAME=VALUE, a name
// alone for an empty value), unset environment of one variable and of all (after gdb's
// question), show environment NAME, each run started with it; against gdb.
func TestProgramEnvironmentAsGDB(t *testing.T) {
	pipedAsGDB(t, "program environment", "env", envProg, "show environment PDB_A\nset environment PDB_A hello world\nset env PDB_B=two\nset environment PDB_C\n"+
		"show environment PDB_A\nshow env PDB_B\nshow environment PDB_C\nrun\nunset environment PDB_A\n"+
		"show environment PDB_A\nrun\nunset environment\nshow environment\nrun\nset environment\nunset foo\n")
}

// The settings scripts set as a matter of course, as gdb's: confirm (off: kill asks
// nothing), pagination, height, width, verbose, and disassembly-flavor (intel: x/i and
// disassemble in Intel's syntax); their show answers and the errors of bad values.
func TestSettingsAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	cmds := exCommands("show confirm", "set confirm off", "show confirm", "show pagination", "set pagination off",
		"show pagination", "show height", "set height 30", "show height", "set height unlimited", "show width", "set width 0",
		"show width", "show verbose", "show disassembly-flavor", "set disassembly-flavor intel", "show disassembly-flavor",
		"set disassembly-flavor x", "set confirm maybe", "set height x", "break down", "run", "x/2i $pc", "disassemble",
		"set disassembly-flavor att", "x/i $pc", "kill",
		"show debug-file-directory", "set debug-file-directory /a:/b", "show debug-file-directory",
		"set debug-file-directory", "show debug-file-directory", "set debuginfod enabled maybe", "set debuginfod nonsense",
		"set debuginfod enabled off", "show debuginfod enabled") // (gdb's is "ask" until set: polydbg has no client)
	dir, exe := buildNative(t, "settings", downProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, cmds)
	compareLines(t, "settings", dir, ours, theirs)
}

// skipProg calls functions from main and from each other.
const skipProg = `#include <stdio.h>
int helper(int x) { return x + 1; }
int twice(int x) { return 2 * x; }
int both(int x) {
	int y = twice(x);
	int z = helper(y);
	return z;
}
int main(void) {
	int a = helper(1);
	int b = both(a);
	printf("%d %d\n", a, b);
	return 0;
}
`

// skip as gdb's: a function by name, a file, a glob of files, a regular expression of
// functions, a function of a file; step passing over what is skipped and entering the
// rest; info skip; skip delete, enable and disable; numbers never given twice.
func TestSkipAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	cmds := exCommands("info skip", "skip function helper", "skip -gfi *.h", "skip -rfu ^tw", "skip file skip.c",
		"info skip", "skip delete 4", "skip disable 3", "info skip", "skip enable", "break main", "run", "step", "step", "step",
		"step", "info skip 1", "skip disable", "run", "step", "skip delete", "info skip", "skip", "skip nosuch", "skip delete 9",
		"skip -fi skip.c -fu twice", "info skip", "kill")
	dir, exe := buildNative(t, "skip", skipProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, cmds)
	compareLines(t, "skip", dir, ours, theirs)
}

// set logging as gdb's: the answers copied to a file, appended to or (overwrite) written
// anew, also on the screen unless redirect; gdb's warnings for a setting changed while
// logging and for the deprecated set logging on; show logging.
func TestLoggingAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "logging", downProg)
	cmds := exCommands("show logging", "set logging file "+dir+"/log.txt", "set logging enabled on", "p 1", "show logging",
		"set logging overwrite on", "set logging redirect on", "p 2", "set logging enabled off", "p 3", "set logging on", "p 4",
		"set logging off", "set logging bogus", "shell cat "+dir+"/log.txt", "shell rm "+dir+"/log.txt")
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, cmds)
	compareLines(t, "logging", dir, ours, theirs)
}

// structProg has a global struct to print in every layout, and a function called in a loop.
const structProg = `#include <stdio.h>
struct S { char c; int i; double d; short s; };
struct S gs = {'a', 2, 3.5, 4};
char word[] = "aaaaaab";
int counter;
int add(int a, int b) { int r = a + b; counter += r; return r; }
int main(void) {
	int total = 0;
	for (int i = 0; i < 3; i++) total = add(total, i);
	printf("%d\n", total);
	return 0;
}
`

// gdb's with (a setting for one command, put back after it, nested; its errors) and
// print's options before "--" (-pretty, -elements, -repeats, abbreviated, with a format
// after them, an unknown one); p/x of a struct before the program runs; until and advance
// from a frame selected with up (they stop where that frame returns, not frame 0); an
// ignore count used up, no longer listed. Against gdb.
func TestWithAndPrintOptionsAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	cmds := exCommands("with", "with print pretty", "with nosuch -- p 1", "with print pretty on -- p gs", "show print pretty",
		`with print elements 2 -- p word`, `print -elements 3 -- word`, "print -pretty -elements 3 -- gs", "print -p -- gs",
		"print -nosuch -- 1", "print -- -5", "print -repeats 3 -- word", "print -pretty off -- gs",
		"with print pretty on -- with print elements 1 -- p gs", "show print elements", "with listsize 2 -- list 1",
		"print -pretty -- /x gs", "p/x gs", "with print pretty on -- print nosuch", "show print pretty",
		"break add", "run", "up", "until 9", "up", "advance 10", "ignore 1 1", "info breakpoints", "continue",
		"info breakpoints")
	dir, exe := buildNative(t, "with", structProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, cmds)
	compareLines(t, "with and print options", dir, ours, theirs)
}

// gdb's search, forward-search and reverse-search (from the first line list showed, from
// the line found, from the file's start again once the program runs; an empty expression
// is the last one) and its functions of the debugger's state, $_gdb_setting,
// $_gdb_setting_str and $_as_string, with their errors. Against gdb.
func TestSearchAndDebuggerFunctionsAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	cmds := exCommands("list 1,3", "search total", "search total", "search zzz", "reverse-search add", "list",
		"forward-search int", "rev S", "fo return", "search ^int", "search",
		`p $_gdb_setting("print elements")`, `p $_gdb_setting_str("print elements")`, `p $_gdb_setting("print pretty")`,
		`p $_gdb_setting_str("print pretty")`, `p $_gdb_setting("height")`, `p $_gdb_setting_str("height")`,
		`p $_gdb_setting("confirm")`, `p $_gdb_setting("disassembly-flavor")`, `p $_gdb_setting("listsize")`,
		"set print elements unlimited", `p $_gdb_setting("print elements")`, `p $_gdb_setting_str("p elem")`,
		`p $_gdb_setting("nosuch")`, `p $_gdb_setting(1)`, `whatis $_gdb_setting("print pretty")`,
		`p $_as_string(gs.c)`, `p $_as_string(gs)`, `p $_strlen($_as_string(gs.i * 100))`,
		"break add", "run", "search return", "up", "search return", "reverse-search S", "kill")
	dir, exe := buildNative(t, "search", structProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, cmds)
	compareLines(t, "search and debugger functions", dir, ours, theirs)
}

// Commands with a count, gdb's: next N, stepi N, nexti N (only the last stop told; a
// breakpoint on the way ends them); disassemble before the run at the file's addresses;
// array type names (sizeof(int[10]), ptype struct S[2]); arithmetic on a function's address
// (x/2i main+20, a symbol without a size naming what follows it); x/s setting $_ to the
// last string and $__ to void. Against gdb.
func TestCountsAndAddressesAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	cmds := exCommands("disassemble /r add", "disassemble /s main", "p sizeof(int[10])", "ptype int[3]",
		"whatis int[2][3]", "p sizeof(char *[4])", "p sizeof(main)", "ptype struct S[2]", "p sizeof (struct S[2])",
		"break main", "run", "next", "break add", "next 2", "info breakpoints", "stepi 3", "nexti 2", "x/2i main+20",
		"p main+20", "p add - 1", "p &main + 1", "x/s word", "p $_", "p $__", "whatis $_", "delete", "finish", "next 3", "kill")
	dir, exe := buildNative(t, "counts", structProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, cmds)
	compareLines(t, "counts and addresses", dir, ours, theirs)
}

// lineCountProg counts the lines of its standard input and prints its arguments.
const lineCountProg = `#include <stdio.h>
int main(int argc, char **argv) {
	char buf[64];
	int n = 0;
	while (fgets(buf, sizeof buf, stdin)) n++;
	printf("lines %d args %d\n", n, argc - 1);
	for (int i = 1; i < argc; i++) printf("[%s]\n", argv[i]);
	return 0;
}
`

// run's redirections as gdb's shell takes them: < IN, > OUT, >> OUT, with or without
// blanks, quoted file names; quoted or escaped < and > stay arguments; show args says
// them as given. Against gdb.
func TestRunRedirectionsAsGDB(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.txt"), filepath.Join(dir, "out.txt")
	if err := os.WriteFile(in, []byte("a\nb\nc\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := strings.Join([]string{"run < " + in, `run a "b c" < ` + in + " > " + out, "shell cat " + out,
		"shell rm " + out, "run y>>" + out + " <'" + in + "'", "run z >>" + out + " <" + in, "shell cat " + out,
		"shell rm " + out, "show args", `run "<" '>' \< q <` + in}, "\n") + "\n"
	sdir, ours, theirs := scriptAndGDB(t, "redirect", lineCountProg, script)
	compareLines(t, "run redirections", sdir, ours, theirs)
}

// list *ADDR as gdb's: the lines around the code at an address, said first ("0x1164 is in
// main (t.c:7)."), before the run in the file's addresses; a line past the end in gdb's
// words.
func TestListAddressAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	cmds := exCommands("list *main", "list *add+4", "list 100", "break add", "run", "list *$pc", "list *main")
	dir, exe := buildNative(t, "listaddr", structProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, cmds)
	compareLines(t, "list *ADDR", dir, ours, theirs)
}

// x, info line, print, output, info address and info symbol before the program runs show
// the file's addresses, as gdb (and x takes them back: x $_ after info line), the loaded
// ones once it runs; info source names the file list showed before the run. Against gdb.
func TestExamineBeforeRunAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	cmds := exCommands("info source", "list add", "info source", "x/4xb main", "x/2i main", "x", "p $_", "x/2xw &gs", "x/s word", "info line add", "x/2i $_",
		"info line main", "p main", "p &gs", "p/x &gs.i", "output &gs", "echo \\n", "info address main", "info symbol main",
		"break add", "run", "x/2i $pc", "x/2xw &gs", "info line add", "p &gs", "info symbol main")
	dir, exe := buildNative(t, "xbefore", structProg)
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, cmds)
	compareLines(t, "x before run", dir, ours, theirs)
}
