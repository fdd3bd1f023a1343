package main

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// An ELF executable needs no --native: `polydbg debug PROG ARGS...` runs it under gdbserver
// with its arguments, as gdb --args does (it used to be compiled as Kite source and fail
// with a screen of "invalid character" errors).
func TestDebugExecutableWithoutNative(t *testing.T) {
	bin := polydbgBinary(t)
	_, exe := buildNative(t, "args", "#include <stdio.h>\nint square(int x) { return x * x; }\n"+
		"int main(int argc, char **argv) {\n    int n = square(argc);\n    printf(\"%d %s\\n\", n, argv[1]);\n    return 0;\n}\n")
	cmd := exec.Command(bin, "debug", exe, "hello")
	cmd.Stdin = strings.NewReader("break square\nrun\nfinish\ncontinue\nquit\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"Breakpoint 1, square", "Value returned is $1 = 4", "4 hello", "exited normally"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// A program built for another processor (here an ARM one) is refused before the prompt,
// saying how to debug it, whether --native was given or not.
func TestDebugForeignExecutable(t *testing.T) {
	bin := polydbgBinary(t)
	fw := filepath.Join(t.TempDir(), "fw.elf")
	if err := os.WriteFile(fw, armELFHeader(), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"debug", fw}, {"debug", "--native", fw}} {
		cmd := exec.Command(bin, args...)
		cmd.Stdin = strings.NewReader("run\nquit\n")
		out, err := cmd.CombinedOutput()
		if code := cmd.ProcessState.ExitCode(); err == nil || code != 1 {
			t.Errorf("%v: exit code %d, want 1\n%s", args, code, out)
		}
		for _, want := range []string{"is a program for ARM, not for this machine", "--qemu MACHINE " + fw} {
			if !strings.Contains(string(out), want) {
				t.Errorf("%v: output lacks %q:\n%s", args, want, out)
			}
		}
		if strings.Contains(string(out), "(polydbg)") {
			t.Errorf("%v: a prompt before the error:\n%s", args, out)
		}
	}
}

// armELFHeader is the 52-byte header of a 32-bit little-endian ARM executable with no
// sections or segments: enough for debug/elf to read its machine.
func armELFHeader() []byte {
	h := make([]byte, 52)
	copy(h, "\x7fELF")
	h[4], h[5], h[6] = 1, 1, 1 // ELFCLASS32, little-endian, version 1
	le := binary.LittleEndian
	le.PutUint16(h[16:], 2)  // ET_EXEC
	le.PutUint16(h[18:], 40) // EM_ARM
	le.PutUint32(h[20:], 1)  // version
	le.PutUint16(h[40:], 52) // header size
	le.PutUint16(h[42:], 32) // program header entry size
	le.PutUint16(h[46:], 40) // section header entry size
	return h
}

// disassemble in polydbg debug shows a function's machine code as gdb does, line for line:
// offsets, the "=>" at the frame's pc, branch targets and rip-relative operands at their
// run-time addresses with gdb's names; a Kite function shows its bytecode. info symbol
// names addresses as gdb does; info sharedlibrary lists the libraries.
func TestDisassembleAsGDB(t *testing.T) {
	realparts.Need(t, "gdb", "objdump")
	bin := polydbgBinary(t)
	_, exe := buildNative(t, "dis", "#include <stdio.h>\nint values[3] = {1, 2, 3};\nconst char *greeting = \"hi\\tthere\";\n"+
		"int sum(int n) {\n    int s = 0;\n    for (int i = 0; i < n; i++)\n        s += values[i];\n    return s;\n}\n"+
		"int main(void) {\n    printf(\"%d\\n\", sum(3));\n    return 0;\n}\n")
	const commands = "break sum\nrun\ndisassemble\nup\ndisassemble\ndisassemble sum\n" +
		"info symbol values\ninfo symbol &values[2]\ninfo symbol $pc\ninfo symbol 8\ninfo sharedlibrary\n" +
		"x/3i $pc\nx/3dw values\nx/2xg &values[1]\nx/s greeting\nx/2i 0x65\nx/2i sum\n"
	cmd := exec.Command(bin, "debug", exe)
	cmd.Stdin = strings.NewReader(commands + "quit\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	oracle := []byte(realparts.GDBBatch(t, exe, commands))
	insn := regexp.MustCompile(`(?m)^(?:=>|  ) 0x[0-9a-f]+ <\+\d+>:\t.*$`)
	ours, theirs := insn.FindAllString(string(out), -1), insn.FindAllString(string(oracle), -1)
	agree := 0
	for i := range theirs {
		if i < len(ours) && ours[i] == theirs[i] {
			agree++
		} else if i < len(ours) {
			t.Errorf("polydbg %q\ngdb     %q", ours[i], theirs[i])
		}
	}
	t.Logf("disassemble: %d of %d instruction lines agree with gdb", agree, len(theirs))
	symbol := regexp.MustCompile(`(?m)(?:No symbol matches .*|\S+(?: \+ \d+)? in section .*)$`)
	if ours, theirs := symbol.FindAllString(string(out), -1), symbol.FindAllString(string(oracle), -1); !slices.Equal(ours, theirs) || len(ours) != 4 {
		t.Errorf("info symbol: polydbg %q, gdb %q", ours, theirs)
	} else {
		t.Logf("info symbol: 4 of 4 answers agree with gdb")
	}
	examined := regexp.MustCompile(`(?m)(?:=> |   )?0x[0-9a-f]+(?: <[^+>][^>]*>)?:\t.*$`)
	if ours, theirs := examined.FindAllString(string(out), -1), examined.FindAllString(string(oracle), -1); !slices.Equal(ours, theirs) || len(ours) != 9 {
		t.Errorf("x: polydbg %q, gdb %q", ours, theirs)
	} else {
		t.Logf("x/i, x/dw, x/xg, x/s: 9 of 9 lines agree with gdb")
	}
	if !regexp.MustCompile(`(?m)^0x[0-9a-f]{16}  0x[0-9a-f]{16}  Yes(?: \(\*\))? +/\S+/libc\.so\.6$`).Match(out) {
		t.Errorf("info sharedlibrary does not list libc:\n%s", out)
	}
	if len(theirs) < 20 || len(ours) != len(theirs) {
		t.Fatalf("%d lines from polydbg, %d from gdb:\n%s\n--- gdb:\n%s", len(ours), len(theirs), out, oracle)
	}
	kite := filepath.Join(t.TempDir(), "k.kite")
	if err := os.WriteFile(kite, []byte("fn twice(x) {\n    return x * 2\n}\nprint(twice(4))\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd = exec.Command(bin, "debug", kite)
	cmd.Stdin = strings.NewReader("break twice\nrun\ndisassemble\nquit\n")
	if out, err = cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, want := range []string{"Dump of assembler code for function twice:\n", "=> ", "End of assembler dump.\n"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("Kite disassemble lacks %q:\n%s", want, out)
		}
	}
}

// display/i $pc shows the next instruction at every stop, as gdb's does under stepi.
func TestDisplayInstructionsAsGDB(t *testing.T) {
	realparts.Need(t, "gdb", "objdump")
	bin := polydbgBinary(t)
	_, exe := buildNative(t, "disp", "int twice(int x) {\n    return x * 2;\n}\nint main(void) {\n    return twice(3) - 6;\n}\n")
	const commands = "break twice\nrun\ndisplay/i $pc\nstepi\nstepi\nstepi\n"
	cmd := exec.Command(bin, "debug", exe)
	cmd.Stdin = strings.NewReader(commands + "info display\nundisplay 1\nstepi\nquit\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	oracle := realparts.GDBBatch(t, exe, commands)
	shown := regexp.MustCompile(`(?m)^(?:\(polydbg\) )?(1: x/i \$pc\n=> 0x[0-9a-f]+ <[^>]+>:\t.*)$`)
	var ours, theirs []string
	for _, m := range shown.FindAllStringSubmatch(string(out), -1) {
		ours = append(ours, m[1])
	}
	for _, m := range shown.FindAllStringSubmatch(oracle, -1) {
		theirs = append(theirs, m[1])
	}
	// The displays at the three stepi stops (gdb's batch output may lose the first one, shown
	// by the display command itself, among its other lines).
	if len(ours) != 4 || len(theirs) < 3 || !slices.Equal(ours[1:], theirs[len(theirs)-3:]) {
		t.Fatalf("display/i: polydbg %q\ngdb %q\n%s", ours, theirs, out)
	}
	t.Logf("display/i: 3 of 3 displays at stepi stops agree with gdb")
	if !strings.Contains(string(out), "Num Enb Expression\n1:   y  /i $pc\n") { // info display, as gdb
		t.Errorf("info display:\n%s", out)
	}
}

// gdb's batch use: `polydbg debug -batch -x FILE -ex CMD... PROG` runs the file's commands
// (comments and blank lines skipped) and the -ex commands, then quits, killing the
// program; no prompt is written. gdb run the same way prints the same lines.
func TestDebugBatchAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	bin := polydbgBinary(t)
	dir, exe := buildNative(t, "batch", "#include <stdio.h>\nint square(int x) { return x * x; }\n"+
		"int main(void) {\n    int sum = 0;\n    for (int i = 0; i < 5; i++)\n        sum += square(i);\n"+
		"    printf(\"sum %d\\n\", sum);\n    return 0;\n}\n")
	script := filepath.Join(dir, "setup.gdb")
	if err := os.WriteFile(script, []byte("# stop in the fourth call\nbreak square if x == 3\n\nrun\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-batch", "-x", script, "-ex", "bt", "-ex", "finish", "-ex", "print sum", "-ex", "info locals",
		"-ex", "display sum", "-ex", "next", "-ex", "continue", "-ex", "print $_exitcode", exe} // -batch: no "Continuing.", a display shown at the next stop only
	ours, err := exec.Command(bin, append([]string{"debug"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("polydbg: %v\n%s", err, ours)
	}
	theirs, err := exec.Command("gdb", append([]string{"-nx"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, theirs)
	}
	compareLines(t, "batch", dir, ours, theirs)
	if strings.Contains(string(ours), "(polydbg)") {
		t.Errorf("a prompt in batch mode:\n%s", ours)
	}
}

// gdbLines are the lines of a batch run's output as the gdb oracle tests compare them:
// paths under dir (when not "") relative, process ids as a word, gdb's notes about the
// thread library left out.
func gdbLines(out []byte, dir string) []string {
	pid := regexp.MustCompile(`process [0-9]+( +)?`) // (and a table's padding after it, which a pid's digits change)
	lwp := regexp.MustCompile(`LWP [0-9]+`)          // a thread's, which differs from run to run too
	text := string(out)
	if dir != "" {
		text = strings.ReplaceAll(text, dir+"/", "")
	}
	var ls []string
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "[Thread debugging using libthread_db") || strings.HasPrefix(l, "Using host libthread_db") {
			continue
		}
		l = lwp.ReplaceAllString(l, "LWP N")
		ls = append(ls, pid.ReplaceAllStringFunc(l, func(m string) string {
			if strings.HasSuffix(m, " ") {
				return "process PID "
			}
			return "process PID"
		}))
	}
	return ls
}

// compareLines fails t for each line of polydbg's batch output that is not gdb's, and logs
// how many agree.
func compareLines(t *testing.T, what, dir string, ours, theirs []byte) {
	t.Helper()
	o, g := gdbLines(ours, dir), gdbLines(theirs, dir)
	agree := 0
	for i := range max(len(o), len(g)) {
		if i < len(o) && i < len(g) && o[i] == g[i] {
			agree++
		} else {
			t.Errorf("%s: line %d: polydbg %q, gdb %q", what, i+1, at(o, i), at(g, i))
		}
	}
	t.Logf("%s: %d of %d lines agree with gdb", what, agree, len(g))
}

// at is ls[i], or "" past its end.
func at(ls []string, i int) string {
	if i < len(ls) {
		return ls[i]
	}
	return ""
}

// How a native program ends, in gdb's words: exit codes (gdb's are octal), a kill (gdb asks
// first and, without a terminal, answers itself), a signal that ends it, and what info
// program, $_exitcode and $_exitsignal say after each.
func TestProgramEndsAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	bin := polydbgBinary(t)
	dir, exe := buildNative(t, "ends", "#include <stdio.h>\n#include <stdlib.h>\n"+
		"int square(int x) { return x * x; }\n"+
		"int main(int argc, char **argv) {\n\tint code = argc > 1 ? atoi(argv[1]) : 0;\n"+
		"\tprintf(\"sq %d\\n\", square(3));\n\tif (code == 99) { int *p = 0; return *p; }\n\treturn code;\n}\n")
	after := []string{"-ex", "info program", "-ex", "print $_exitcode", "-ex", "print $_exitsignal"}
	for _, c := range []struct {
		name string
		cmds []string
		args []string
	}{
		{"exit 0", []string{"-ex", "run"}, nil},
		{"exit 11", []string{"-ex", "run"}, []string{"11"}},
		{"kill", []string{"-ex", "break square", "-ex", "run", "-ex", "kill"}, nil},
		{"signal", []string{"-ex", "run", "-ex", "continue"}, []string{"99"}},
		{"twice", []string{"-ex", "run", "-ex", "run"}, []string{"3"}},
	} {
		ours, theirs := batchAndGDB(t, bin, exe, append(c.cmds, after...), c.args...)
		compareLines(t, c.name, dir, ours, theirs)
	}
}

// batchAndGDB runs the -ex commands with -batch on exe and its arguments in polydbg and in
// gdb and returns both outputs.
func batchAndGDB(t *testing.T, bin, exe string, exCmds []string, args ...string) (ours, theirs []byte) {
	t.Helper()
	return batchAndGDBWith(t, bin, exe, nil, exCmds, args...)
}

// batchAndGDBWith is batchAndGDB with settings (-iex options) given to both first.
func batchAndGDBWith(t *testing.T, bin, exe string, settings, exCmds []string, args ...string) (ours, theirs []byte) {
	t.Helper()
	return runBatch(t, bin, exe, settings, exCmds, args...), runGDB(t, exe, settings, exCmds, args...)
}

// runBatch is polydbg debug -batch with settings (-iex options) and the commands.
func runBatch(t *testing.T, bin, exe string, settings, exCmds []string, args ...string) []byte {
	t.Helper()
	cmds := append([]string{"-batch"}, exCmds...)
	ours, err := exec.Command(bin, append(append(append(append([]string{"debug"}, settings...), cmds...), exe), args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("polydbg: %v\n%s", err, ours)
	}
	return ours
}

// runGDB is gdb -batch with settings and the commands (the program's environment as
// polydbg's, LINES and COLUMNS set by both).
func runGDB(t *testing.T, exe string, settings, exCmds []string, args ...string) []byte {
	t.Helper()
	gdbArgs := append(append([]string{"-nx"}, settings...), "-batch")
	gdbArgs = append(gdbArgs, exCmds...)
	theirs, err := exec.Command("gdb", append(append(gdbArgs, "--args", exe), args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, theirs)
	}
	return theirs
}

// A program built from its own directory ("gcc -g prog.c") has its source named as the
// compiler was given it, as gdb names it, in every line that shows it: breakpoints set and
// listed (with the file's address before the program runs, as gdb), frames, info frame,
// info line, info functions; a header beside it by its whole path, as gdb.
func TestRelativeSourceNamesAsGDB(t *testing.T) {
	realparts.Need(t, "gdb", "gcc", "gdbserver")
	bin := polydbgBinary(t)
	dir, _ := writeSource(t, "names.c", "#include <stdio.h>\n#include \"twice.h\"\nint square(int x) { return x * x; }\n"+
		"int main(void) {\n\tint n = square(3);\n\tprintf(\"%d\\n\", twice(n));\n\treturn 0;\n}\n")
	if err := os.WriteFile(filepath.Join(dir, "twice.h"), []byte("static int twice(int x) { return 2 * x; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	build := exec.Command("gcc", "-g", "-O0", "-o", "names", "names.c")
	build.Dir = dir
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	ours, theirs := batchAndGDB(t, bin, filepath.Join(dir, "names"), []string{"-ex", "break square", "-ex", "break twice", "-ex", "info breakpoints",
		"-ex", "run", "-ex", "bt", "-ex", "info frame", "-ex", "info line", "-ex", "info functions square", "-ex", "finish", "-ex", "continue"})
	if !strings.Contains(string(ours), "Breakpoint 1, square (x=3) at names.c:3\n") {
		t.Errorf("the stop does not name names.c as the compiler was given it:\n%s", ours)
	}
	compareLines(t, "source names", "", ours, theirs)
}

// Breakpoint command lists (commands N ... end) from a script, as gdb runs them: after the
// stop's report, or instead of it with silent; a continue in the list runs the program on
// and the next stop runs its own list; info breakpoints lists them under each breakpoint.
func TestBreakpointCommandsAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	const lines = "break square\ncommands\n  silent\n  printf \"x is %d\\n\", x\n  continue\nend\n" +
		"break 7\ncommands 2\n# a comment\nprint sum\nend\ninfo breakpoints\nrun\ninfo breakpoints\n" +
		"commands 2\nend\ninfo breakpoints\ncontinue\n"
	dir, ours, theirs := scriptAndGDB(t, "cmds", "#include <stdio.h>\nint square(int x) { return x * x; }\n"+
		"int main(void) {\n    int sum = 0;\n    for (int i = 0; i < 4; i++)\n        sum += square(i);\n"+
		"    printf(\"sum %d\\n\", sum);\n    return 0;\n}\n", lines)
	if !strings.Contains(string(ours), "x is 3\n") || !strings.Contains(string(ours), "$1 = 14\n") {
		t.Errorf("the lists did not run:\n%s", ours)
	}
	compareLines(t, "commands", dir, ours, theirs)
}

// User commands (define NAME ... end) from a script, as gdb runs them: their lines with
// $arg0... and $argc replaced, one user command calling another.
func TestUserCommandsAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	const lines = "define showsq\n  call square($arg0)\n  print $argc\n  echo done $arg0\\n\nend\n" +
		"define both\n  showsq $arg0\n  showsq $arg1\nend\nbreak main\nrun\nshowsq 5\nboth 2 7\n" +
		"define showsq\n  print $arg0 + 1\nend\nboth 1 2\n"
	dir, ours, theirs := scriptAndGDB(t, "define", squareProg, lines)
	if !strings.Contains(string(ours), "$1 = 25\n$2 = 1\ndone 5\n") {
		t.Errorf("showsq 5 did not run:\n%s", ours)
	}
	compareLines(t, "define", dir, ours, theirs)
}

// gdb's scripting from a file, as gdb runs it: convenience variables (set $i = 0, void
// when never set), while with loop_break and loop_continue, if and else, nested in one
// another and in a user command, conditions over the program's variables and registers.
func TestScriptFlowAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	const lines = `break square
run
set $i = 0
set $sum = 0
while $i < 5
  set $sum = $sum + $i * x
  if $i == 3
    echo three\n
  else
    printf "i=%d\n", $i
  end
  set $i = $i + 1
end
print $sum
print $i
print $nothing
if x > 100
  echo big\n
else
  echo small\n
end
define upto
  set $k = 0
  while 1
    if $k >= $arg0
      loop_break
    end
    set $k = $k + 1
    if $k == 2
      loop_continue
    end
    output $k
    echo \n
  end
end
upto 4
print $rip == $pc
set $rax = $rax + 1
print $k
`
	dir, ours, theirs := scriptAndGDB(t, "flow", squareProg, lines)
	if !strings.Contains(string(ours), "i=4\n$1 = 30\n$2 = 5\n$3 = void\nsmall\n1\n3\n4\n") {
		t.Errorf("the script did not run as written:\n%s", ours)
	}
	compareLines(t, "flow", dir, ours, theirs)
}

// squareProg is a C program whose main calls square(3) once.
const squareProg = "int square(int x) { return x * x; }\nint main(void) {\n    return square(3) - 9;\n}\n"

// scriptAndGDB builds the C program src as NAME and runs the gdb script lines on it with
// exCommands are gdb's -ex arguments for the commands, in order (one -ex each).
func exCommands(commands ...string) []string {
	args := make([]string, 0, 2*len(commands))
	for _, c := range commands {
		args = append(args, "-ex", c)
	}
	return args
}

// noLibcDebugInfo keeps gdb and polydbg from reading libc's separate debug information
// (Debian's libc6-dbg, where it is installed): both then name a library's frames by its
// symbols, as on a machine without it.
var noLibcDebugInfo = []string{"-iex", "set debug-file-directory /nonexistent"}

// -batch -x in polydbg and in gdb: the build directory and both outputs.
func scriptAndGDB(t *testing.T, name, src, lines string) (dir string, ours, theirs []byte) {
	t.Helper()
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, name, src)
	script := filepath.Join(dir, name+".gdb")
	if err := os.WriteFile(script, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	ours, theirs = batchAndGDB(t, polydbgBinary(t), exe, []string{"-x", script})
	return dir, ours, theirs
}

// An error ends what it happens in, as gdb's: a file read by -x or source (after gdb's
// "FILE:LINE: Error in sourced command file:"), and the file that sourced it; a user
// command; a loop. -ex commands go on after one, and -batch ends with 1 when the last
// command failed. Each against gdb, exit status included.
func TestScriptErrorsAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "errs", squareProg)
	scripts := map[string]string{ // each ends at its error
		"inner.gdb":  "echo inner runs\\n\n# a comment\nprint nosuch\necho not reached\\n\n",
		"define.gdb": "break square\nrun\ndefine twice\n  print x * 2\n  print nothing\n  echo not reached\\n\nend\ntwice\necho not reached\\n\n",
		"while.gdb":  "break square\nrun\nset $i = 0\nwhile $i < 3\n  set $i = $i + 1\n  print $i\n  print nosuch\nend\necho not reached\\n\n",
		"outer.gdb":  "break square\nrun\necho outer runs\\n\nsource " + filepath.Join(dir, "inner.gdb") + "\necho not reached\\n\n",
	}
	for name, text := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"-x", filepath.Join(dir, "define.gdb")},
		{"-x", filepath.Join(dir, "while.gdb")},
		{"-x", filepath.Join(dir, "outer.gdb")},
		{"-ex", "break square", "-ex", "run", "-ex", "print nosuch", "-ex", "echo goes on\\n", "-ex", "print x + 1"},
		{"-ex", "break square", "-ex", "run", "-ex", "print x", "-ex", "print nosuch"},
	} {
		cmds := append([]string{"-batch"}, args...)
		ours, ourErr := exec.Command(polydbgBinary(t), append(append([]string{"debug"}, cmds...), exe)...).CombinedOutput()
		theirs, theirErr := exec.Command("gdb", append(append([]string{"-nx"}, cmds...), exe)...).CombinedOutput()
		if (ourErr == nil) != (theirErr == nil) {
			t.Errorf("%v: polydbg ended with %v, gdb with %v", args, ourErr, theirErr)
		}
		if strings.Contains(string(ours), "not reached") {
			t.Errorf("%v: a line after an error ran:\n%s", args, ours)
		}
		compareLines(t, strings.Join(args, " "), dir, ours, theirs)
	}
}

// disassemble's modifiers, as gdb's: /r with each instruction's bytes, /s with the source
// lines before their code (a loop's body after its condition, as the code runs), /m with
// each line's code gathered under it; a modifier it does not know in gdb's words.
func TestDisassembleModifiersAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	dir, exe := buildNative(t, "dis", "int sum(int n) {\n\tint s = 0;\n\t// a comment line\n\n\tfor (int i = 0; i < n; i++)\n\t\ts += i;\n\treturn s;\n}\nint main(void) { return sum(4) - 6; }\n")
	cmds := exCommands("break sum", "run", "disassemble /r", "disassemble /s", "disassemble /m", "disassemble /rs main",
		"disassemble /q", "disassemble /m main")
	ours, theirs := batchAndGDB(t, polydbgBinary(t), exe, cmds)
	compareLines(t, "disassemble modifiers", dir, ours, theirs)
}

// userCmdsScript defines user commands, documents one, hooks a command and the stop.
const userCmdsScript = `define adder
  if $argc == 2
    print $arg0 + $arg1
  else
    while 0
      echo x
    end
  end
end
define two
echo 2\n
end
show user adder
show user
help adder
document adder
Add two numbers.
Second line.
end
help adder
adder 1 2
adder 1
define hook-echo
printf "before "
end
define hookpost-echo
printf " after\n"
end
echo mid
define hook-stop
echo stopped!\n
end
break add
run
printf "%s|%6s|%d\n", word, word, 3
continue
show user two
`

// More of user commands as gdb's: show user (one, all, blocks indented), document and help,
// hooks before and after a command (hook-echo, hookpost-echo) and at each stop (hook-stop,
// before the stop is told); printf's %s of a char array ends at its NUL. Against gdb.
func TestUserCommandDocsAndHooksAsGDB(t *testing.T) {
	dir, ours, theirs := scriptAndGDB(t, "usercmds", structProg, userCmdsScript)
	compareLines(t, "user commands", dir, ours, theirs)
}
