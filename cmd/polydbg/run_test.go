package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/engine/profile"
)

func kiteFile(t *testing.T, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "prog.kite")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRunExitCodesAndErrors(t *testing.T) {
	tests := []struct {
		name, src   string
		code        int
		out, errOut []string
	}{
		{"ok", "print(1 + 2)\n", 0, []string{"3\n"}, nil},
		{"exit", "print(\"bye\")\nexit(3)\nprint(\"never\")\n", 3, []string{"bye\n"}, nil},
		{"runtime error", "fn f(x) {\n    return 1 / x\n}\nf(0)\n", 1, nil,
			[]string{"prog.kite:2:14: error: division by zero\n", "stack trace:\n  at f (", "  at main ("}},
		{"compile errors", "let = 1\nlet y = )\n", 1, nil, []string{"prog.kite:1:5: error:", "prog.kite:2:9: error:"}},
		{"missing file", "", 1, nil, []string{"error:"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := kiteFile(t, tt.src)
			if tt.src == "" {
				file = filepath.Join(t.TempDir(), "none.kite")
			}
			var stdout, stderr bytes.Buffer
			if code := runMain([]string{file}, &stdout, &stderr); code != tt.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, tt.code, stderr.String())
			}
			for _, w := range tt.out {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("stdout %q lacks %q", stdout.String(), w)
				}
			}
			for _, w := range tt.errOut {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr %q lacks %q", stderr.String(), w)
				}
			}
		})
	}
}

func TestRunFlameGraph(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "fib.svg")
	var stdout, stderr bytes.Buffer
	if code := runMain([]string{"--flame", svg, "../../examples/fib.kite"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.HasPrefix(stdout.String(), "sum: 88\n") {
		t.Fatalf("stdout %q", stdout.String())
	}
	b, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), "<svg") || !strings.Contains(string(b), "<title>fib (") {
		t.Fatalf("not a flame graph of fib:\n%.300s", b)
	}
	// The summary's five hottest stacks depend on the clock (a loaded machine can charge a
	// top-level statement more than fib); its table of functions lists fib whatever the times.
	if !strings.Contains(stderr.String(), "flame graph: "+svg) || !regexp.MustCompile(`(?m)^ +\d+ +\d+ +\d+  fib$`).MatchString(stderr.String()) {
		t.Fatalf("summary %q", stderr.String())
	}
}

func TestDisasm(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := disasmMain([]string{"../../examples/fib.kite"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	for _, w := range []string{"fn main  (", "fn fib  (", "; 3:5 If  if n < 2 { return n }", "  5c  call", "loadlocal"} {
		if !strings.Contains(stdout.String(), w) {
			t.Errorf("disassembly lacks %q", w)
		}
	}
	if code := disasmMain(nil, &stdout, &stderr); code != 2 {
		t.Errorf("no file: exit %d", code)
	}
}

func TestDemoTellsTheWholeTour(t *testing.T) {
	var out bytes.Buffer
	if err := demo(&out); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{
		"(polydbg) break fib if n == 3", "stopped (breakpoint) in fib at line 15",
		"(polydbg) backtrace", "#1 main at line",
		"locals: n = 3 (int)", "watch: n * 10 = 30",
		"(polydbg) next", "(polydbg) step", "watch: n * 10 = 10", "(polydbg) finish", "value returned by fib: 1",
		"refused: append is impure", "program exited with code 0", "hottest stacks",
	} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("demo output lacks %q", w)
		}
	}
}

func TestUnknownCommand(t *testing.T) {
	var stderr bytes.Buffer
	if code := dispatch([]string{"frobnicate"}, &stderr); code != 2 || !strings.Contains(stderr.String(), `unknown command "frobnicate"`) {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
}

// TestRunPprofMatchesReport writes a profile.proto and a speedscope file of a real run and
// checks that `go tool pprof -top` lists the program's functions in the order of the
// built-in report printed on stderr.
func TestRunPprofMatchesReport(t *testing.T) {
	dir := t.TempDir()
	pb, ss := filepath.Join(dir, "fib.pb.gz"), filepath.Join(dir, "fib.json")
	var stdout, stderr bytes.Buffer
	if code := runMain([]string{"--pprof", pb, "--speedscope", ss, "../../examples/fib.kite"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var report []string
	inTable := false
	for _, line := range strings.Split(stderr.String(), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) > 0 && f[len(f)-1] == "function":
			inTable = true
		case inTable && len(f) == 4:
			report = append(report, profile.PprofName(f[3]))
		}
	}
	// fib is usually first, but not always: the profile is of wall time, and a process
	// descheduled on a loaded machine charges the wait to the statement it was in.
	if len(report) < 2 || !slices.Contains(report, "fib") {
		t.Fatalf("built-in report lacks the function table or fib:\n%s", stderr.String())
	}
	out, err := exec.Command("go", "tool", "pprof", "-top", "-nodefraction=0", "-nodecount=1000", pb).Output()
	if err != nil {
		t.Fatalf("go tool pprof: %v\n%s", err, out)
	}
	var listed []string
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 6 && strings.HasSuffix(f[1], "%") && strings.HasSuffix(f[4], "%") {
			listed = append(listed, f[5])
		}
	}
	if strings.Join(listed, " ") != strings.Join(report, " ") {
		t.Fatalf("pprof -top lists %v, the built-in report %v\n%s", listed, report, out)
	}
	var doc struct {
		Shared struct {
			Frames []struct{ Name string }
		}
		Profiles []struct {
			Type    string
			Samples [][]int
			Weights []int64
		}
	}
	b, err := os.ReadFile(ss)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("speedscope file is not JSON: %v", err)
	}
	if len(doc.Profiles) != 1 || doc.Profiles[0].Type != "sampled" || len(doc.Profiles[0].Samples) != len(doc.Profiles[0].Weights) || len(doc.Profiles[0].Samples) == 0 {
		t.Fatalf("speedscope profile: %+v", doc.Profiles)
	}
	if !strings.Contains(string(b), `"name":"fib"`) {
		t.Fatalf("speedscope frames lack fib: %.300s", b)
	}
}
