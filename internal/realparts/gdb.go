package realparts

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BuildC writes the C program src as NAME.c in a temporary directory and builds it with
// debug information and no optimisation (gcc -g -O0, then flags); it returns both paths.
func BuildC(t testing.TB, name, src string, flags ...string) (source, exe string) {
	t.Helper()
	return build(t, "gcc", name+".c", src, flags...)
}

// BuildCXX is BuildC for C++ source, with g++ and its flags (-std=c++20).
func BuildCXX(t testing.TB, name, src string, flags ...string) (source, exe string) {
	t.Helper()
	return build(t, "g++", name+".cpp", src, flags...)
}

// build compiles src, written to a temporary directory as file, with compiler -g -O0 and
// flags.
func build(t testing.TB, compiler, file, src string, flags ...string) (source, exe string) {
	t.Helper()
	Need(t, compiler)
	dir := t.TempDir()
	source, exe = filepath.Join(dir, file), filepath.Join(dir, strings.TrimSuffix(file, filepath.Ext(file)))
	if err := os.WriteFile(source, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{"-g", "-O0"}, flags...), "-o", exe, source)
	if out, err := exec.Command(compiler, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", compiler, err, out)
	}
	return source, exe
}

// GDBBatch runs gdb in batch mode on exe with the debugger commands, one per line, and
// returns what it printed: the oracle that tests compare polydbg's answers with.
func GDBBatch(t testing.TB, exe, commands string) string {
	t.Helper()
	Need(t, "gdb")
	// gdb's own LINES and COLUMNS are taken out of the program's environment, so that its
	// stack is where it is in a program polydbg runs.
	args := []string{"-batch", "-nx", "-ex", "unset environment LINES", "-ex", "unset environment COLUMNS"}
	for _, c := range strings.Split(strings.TrimSpace(commands), "\n") {
		args = append(args, "-ex", c)
	}
	out, err := exec.Command("gdb", append(args, exe)...).CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, out)
	}
	return string(out)
}

// GDBAsk is one command asked at a stop, in the frame of its index (0 the innermost).
type GDBAsk struct {
	Frame int
	Cmd   string
}

// InFrame asks each command in the frame of index frame.
func InFrame(frame int, cmds ...string) []GDBAsk {
	out := make([]GDBAsk, len(cmds))
	for i, c := range cmds {
		out[i] = GDBAsk{Frame: frame, Cmd: c}
	}
	return out
}

// GDBAnswers runs gdb on exe with the setup commands (which must leave it stopped), asks
// each command in its frame and returns gdb's answer to each, without its last newline.
func GDBAnswers(t testing.TB, exe, setup string, asked []GDBAsk) []string {
	t.Helper()
	script := strings.TrimSpace(setup) + "\n"
	for _, q := range asked {
		script += strings.Repeat("up-silently\n", q.Frame) + "echo @@@\\n\n" + q.Cmd + "\n" + strings.Repeat("down-silently\n", q.Frame)
	}
	parts := strings.Split(GDBBatch(t, exe, script), "@@@\n")[1:]
	out := make([]string, len(asked))
	for i := range out {
		if i < len(parts) {
			out[i] = strings.TrimSuffix(parts[i], "\n")
		}
	}
	return out
}

// CompareAnswers fails t for each of our answers that is not gdb's, and logs how many agree.
func CompareAnswers(t testing.TB, what string, asked []GDBAsk, ours, gdb []string) {
	t.Helper()
	agree := 0
	for i, q := range asked {
		if ours[i] == gdb[i] {
			agree++
		} else {
			t.Errorf("%s %q (frame %d):\npolydbg: %q\ngdb:     %q", what, q.Cmd, q.Frame, ours[i], gdb[i])
		}
	}
	t.Logf("%s: %d of %d answers agree with gdb", what, agree, len(asked))
}
