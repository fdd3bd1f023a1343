package gdbremote

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/realparts"
)

// setvarSrc is testdata/native/setvar.c, variables of every C kind.
func setvarSrc(t testing.TB) string {
	p, err := filepath.Abs("testdata/native/setvar.c")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// setvarCases are the assignments of TestSetVariableNative, in order: lvalue, value.
var setvarCases = [][2]string{
	{"sc", "-2"}, {"uc", "200"}, {"s16", "-300"}, {"u16", "65000"}, {"i32", "-70000"},
	{"u32", "4000000000"}, {"i64", "-5000000000"}, {"u64", "0xffffffffffffffff"},
	{"fl", "2.75"}, {"db", "-0.125"}, {"ok", "true"}, {"ch", "'z'"}, {"col", "BLUE"},
	{"q->x", "42"}, {"pp->y", "-7"}, {"pt.tag", "'Q'"}, {"(*q).w", "3.5"},
	{"pt.f.a", "5"}, {"q->f.b", "-9"}, {"pt.f.c", "1"}, {"arr[2]", "99"}, {"*ptr", "77"},
	{"n", "11"}, {"local", "i32"}, {"u16", "u16 - 1000 * 2"}, {"db", "(db + 1) / 2"}, {"i32", "-(n + 'a' % 10) * 3"},
}

func TestSetVariableNative(t *testing.T) {
	realparts.Need(t, "gdbserver", "gdb", "gcc")
	src := setvarSrc(t)
	prog := filepath.Join(t.TempDir(), "setvar")
	if b, err := exec.Command("gcc", "-g", "-O0", "-o", prog, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	line := srcLine(t, src, "show")
	tg, err := LaunchNative(testCtx(t, 20*time.Second), prog, nil, Config{})
	if err != nil {
		t.Fatal(err)
	}
	x := newSess(t, tg)
	if _, err := x.s.SetBreakpoint(engine.BreakpointSpec{Kind: engine.LineBreakpoint, File: "setvar.c", Line: line}); err != nil {
		t.Fatal(err)
	}
	if err := x.s.Start(false); err != nil {
		t.Fatal(err)
	}
	x.stopped()
	var ours []string
	for _, c := range setvarCases {
		v, err := x.s.SetVariable(0, 0, c[0], c[1])
		if err != nil {
			t.Fatalf("set var %s = %s: %v", c[0], c[1], err)
		}
		ours = append(ours, v.Value)
		if got := x.eval(c[0]); got != v.Value {
			t.Errorf("%s reads %q after the set, which answered %q", c[0], got, v.Value)
		}
	}
	// Through scopes and expanded containers, as DAP's setVariable does.
	scopes, err := x.s.Scopes(0)
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]engine.Variable{}
	for _, sc := range scopes[:2] {
		vs, err := x.s.Variables(sc.Ref)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vs {
			vars[v.Name] = v
		}
		if sc.Name == "Globals" {
			if v, err := x.s.SetVariable(0, sc.Ref, "col", "6"); err != nil || v.Value != "BLUE" {
				t.Fatalf("col through Globals: %+v %v", v, err)
			}
		}
	}
	if !vars["n"].Arg || !vars["q"].Arg || vars["local"].Arg {
		t.Errorf("parameter flags: n %v q %v local %v", vars["n"].Arg, vars["q"].Arg, vars["local"].Arg)
	}
	if v, err := x.s.SetVariable(0, vars["arr"].Ref, "[3]", "4"); err != nil || v.Value != "4" {
		t.Fatalf("arr[3] through its children: %+v %v", v, err)
	}
	kids, err := x.s.Variables(vars["q"].Ref) // the pointer's target
	if err != nil || len(kids) != 1 {
		t.Fatalf("children of q: %+v %v", kids, err)
	}
	if v, err := x.s.SetVariable(0, kids[0].Ref, "tag", "82"); err != nil || v.Value != "82 'R'" {
		t.Fatalf("q->tag through its children: %+v %v", v, err)
	}
	for _, bad := range [][3]string{
		{"pt", "1", "Invalid cast."}, {"nope", "1", `No symbol "nope" in current context.`},
		{"ch", "'ab'", "Invalid character constant."}, {"len(x)", "1", "Left operand of assignment is not an lvalue."}, {"pp->nothing", "1", "no member"},
		{"i32", "i32 / 0", "Division by zero"}, {"i32", "nosuch + 1", `No symbol "nosuch" in current context.`}, {"i32", "(1 + 2", "A syntax error in expression, near `'."}, {"i32", "F_NOSUCH | 1", `No symbol "F_NOSUCH" in current context.`},
	} {
		if _, err := x.s.SetVariable(0, 0, bad[0], bad[1]); err == nil || !strings.Contains(err.Error(), bad[2]) {
			t.Errorf("set var %s = %s: %v, want %q", bad[0], bad[1], err, bad[2])
		}
	}
	if err := x.s.Resume(engine.Continue); err != nil {
		t.Fatal(err)
	}
	x.next(engine.EventExited)
	want := "-2 200 -300 63000 -54 4000000000 -5000000000 18446744073709551615 2.750 0.438 1 z 6\n" +
		"42 -7 R 3.500 5 -9 1\n10 77 99 4 77 11 -70000\n"
	if x.out.String() != want {
		t.Errorf("the program printed\n%s\nwant\n%s", x.out.String(), want)
	}
	// gdb's answer to the same assignments.
	args := []string{"-batch", "-nx", "-ex", "break setvar.c:" + strconv.Itoa(line), "-ex", "run"}
	for _, c := range setvarCases {
		if c[1] == "true" { // C has no true without stdbool's macro
			c[1] = "1"
		}
		args = append(args, "-ex", "set var "+c[0]+" = "+c[1], "-ex", "print "+c[0])
	}
	out, err := exec.Command("gdb", append(args, prog)...).CombinedOutput()
	if err != nil {
		t.Fatalf("gdb: %v\n%s", err, out)
	}
	answers := regexp.MustCompile(`(?m)^\$\d+ = (.*)$`).FindAllStringSubmatch(string(out), -1)
	if len(answers) != len(setvarCases) {
		t.Fatalf("gdb answered %d prints:\n%s", len(answers), out)
	}
	for i, c := range setvarCases {
		if ours[i] != answers[i][1] {
			t.Errorf("%s = %s: polydbg reads back %q, gdb prints %q", c[0], c[1], ours[i], answers[i][1])
		}
	}
}

// TestSetVariableQEMU sets a firmware's globals, a struct member, an array element and a
// parameter, and sees the firmware use them.
func TestSetVariableQEMU(t *testing.T) {
	realparts.Need(t, "qemu-system-arm")
	tg, err := StartQEMUTarget(testCtx(t, 20*time.Second), machines[0], buildFirmware(t), Config{})
	if err != nil {
		t.Fatal(err)
	}
	x := newSess(t, tg)
	bp, err := x.s.SetBreakpoint(engine.BreakpointSpec{Kind: engine.LineBreakpoint, File: "fw.c", Line: srcLine(t, fwSrc(t), "busy_add")})
	if err != nil {
		t.Fatal(err)
	}
	if err := x.s.Start(false); err != nil {
		t.Fatal(err)
	}
	x.stopped()
	before := atoi(x.eval("loops"))
	for _, c := range [][3]string{
		{"step", "1000", "1000"}, {"sample.b", "-5", "-5"}, {"sample.c[2]", "200", "200 '\\310'"}, {"signed_val", "0x7", "7"},
	} {
		if v, err := x.s.SetVariable(0, 0, c[0], c[1]); err != nil || v.Value != c[2] {
			t.Fatalf("set var %s = %s: %+v %v", c[0], c[1], v, err)
		}
	}
	if got := x.eval("sample"); got != `{a = 7, b = -5, c = "\001\002\310\004"}` {
		t.Errorf("sample reads %s", got)
	}
	x.s.RemoveBreakpoint(bp.ID)
	if _, err := x.s.SetBreakpoint(engine.BreakpointSpec{Kind: engine.LineBreakpoint, File: "fw.c", Line: srcLine(t, fwSrc(t), "compute_body")}); err != nil {
		t.Fatal(err)
	}
	x.resume(engine.Continue)
	if got := atoi(x.eval("loops")); got != before+1000 {
		t.Errorf("loops went from %d to %d with step 1000", before, got)
	}
	if v, err := x.s.SetVariable(0, 0, "x", "5"); err != nil || v.Value != "5" {
		t.Fatalf("set var x (a parameter): %+v %v", v, err)
	}
	x.resume(engine.StepOver)
	if got := x.eval("scaled"); got != "15" {
		t.Errorf("scaled = %s after x = 5", got)
	}
}

// TestSetVariableInRegister sets a parameter that -O1 keeps in a register (rdi): the
// function computes with the new value.
func TestSetVariableInRegister(t *testing.T) {
	realparts.Need(t, "gdbserver", "gcc")
	prog := buildCOpt(t, `#include <stdio.h>
volatile int seed = 3;
__attribute__((noinline)) int twice(int x) {
	int y = x * 2;
	return y + 1;
}
int main(void) {
	printf("%d\n", twice(seed));
	return 0;
}
`, "-O1")
	tg, err := LaunchNative(testCtx(t, 20*time.Second), prog, nil, Config{})
	if err != nil {
		t.Fatal(err)
	}
	x := newSess(t, tg)
	if _, err := x.s.SetBreakpoint(engine.BreakpointSpec{Kind: engine.FunctionBreakpoint, Function: "twice"}); err != nil {
		t.Fatal(err)
	}
	if err := x.s.Start(false); err != nil {
		t.Fatal(err)
	}
	x.stopped()
	if v, err := x.s.SetVariable(0, 0, "x", "x * 5 + 5"); err != nil || v.Value != "20" {
		t.Fatalf("set var x (in rdi): %+v %v", v, err)
	}
	if got := x.eval("$rdi"); got != "20" {
		t.Errorf("rdi = %s after x = 20", got)
	}
	st := x.resume(engine.StepOut)
	if st.ReturnValue == nil || st.ReturnValue.Value != "41" {
		t.Fatalf("twice returned %+v after x = 20", st.ReturnValue)
	}
}

// buildCOpt builds a C program given as source with gcc -g and the flags.
func buildCOpt(t testing.TB, src string, flags ...string) string {
	t.Helper()
	dir := t.TempDir()
	c, out := filepath.Join(dir, "prog.c"), filepath.Join(dir, "prog")
	if err := os.WriteFile(c, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{"-g"}, flags...), "-o", out, c)
	if b, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, b)
	}
	return out
}

// TestSetVariableInPieces sets a member of a struct that -O2 passes in two registers
// (DW_OP_reg5 piece 8, DW_OP_reg4 piece 8) and refuses a local that has no storage yet.
func TestSetVariableInPieces(t *testing.T) {
	realparts.Need(t, "gdbserver", "gcc")
	prog := buildCOpt(t, `#include <stdio.h>
struct pr { long lo, hi; };
volatile long seed = 3;
__attribute__((noinline)) long use(struct pr s) {
	long a = s.lo * 10;
	asm volatile("" ::: "memory");
	return a + s.hi;
}
int main(void) {
	struct pr s = {seed, seed + 1};
	printf("%ld\n", use(s));
	return 0;
}
`, "-O2")
	tg, err := LaunchNative(testCtx(t, 20*time.Second), prog, nil, Config{})
	if err != nil {
		t.Fatal(err)
	}
	x := newSess(t, tg)
	if _, err := x.s.SetBreakpoint(engine.BreakpointSpec{Kind: engine.FunctionBreakpoint, Function: "use"}); err != nil {
		t.Fatal(err)
	}
	if err := x.s.Start(false); err != nil {
		t.Fatal(err)
	}
	x.stopped()
	if got := x.eval("s"); got != "{lo = 3, hi = 4}" {
		t.Fatalf("s = %s at the entry of use", got)
	}
	if v, err := x.s.SetVariable(0, 0, "s.hi", "100"); err != nil || v.Value != "100" {
		t.Fatalf("set var s.hi (in rsi): %+v %v", v, err)
	}
	if got := x.eval("s"); got != "{lo = 3, hi = 100}" {
		t.Errorf("s = %s after s.hi = 100", got)
	}
	if _, err := x.s.SetVariable(0, 0, "a", "1"); err == nil || !strings.Contains(err.Error(), "optimized out") {
		t.Errorf("a has no location yet: %v", err)
	}
	st := x.resume(engine.StepOut)
	if st.ReturnValue == nil || st.ReturnValue.Value != "130" {
		t.Fatalf("use returned %+v after s.hi = 100", st.ReturnValue)
	}
}
