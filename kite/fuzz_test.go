package kite

// Fuzz tests of the whole pipeline. No Kite program, however bad, may crash or hang the Go
// process:
//
//   - FuzzCompile feeds arbitrary source text to the scanner, parser and compiler, then
//     disassembles what compiles and compiles expressions for the debugger's evaluator.
//   - FuzzRun runs arbitrary source text (mutated from the conformance programs) in the VM.
//   - FuzzRunGenerated turns its input into a syntactically valid program (a generator
//     driven by the input bytes) and runs it, which reaches the VM far more often.
//
// Runs are bounded by a cycle limit and a small recursion limit, and each must end within
// runTimeout. testdata/fuzz/<FuzzName>/ holds a sample of the corpus the fuzzers grew and
// any input that once failed; they run as ordinary tests with `go test`. To fuzz: go test ./kite -run '^$' -fuzz FuzzRunGenerated -fuzztime 2m

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/kite/compile"
	"github.com/polydbg/polydbg/kite/syntax"
	"github.com/polydbg/polydbg/kite/vm"
)

const (
	fuzzMaxCycles = 200_000
	fuzzMaxDepth  = 64
	runTimeout    = 10 * time.Second
)

func addProgramSeeds(f *testing.F) {
	var files []string
	for _, pat := range []string{"testdata/conformance/*.kite", "syntax/testdata/*.kite", "../examples/*.kite", "../examples/*/*.kite"} {
		m, _ := filepath.Glob(pat)
		files = append(files, m...)
	}
	for _, name := range files {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range []string{"", "x", "let x = 1\nprint(x)", "fn f(n) { return f(n) }\nf(1)",
		"while true {}", "for x in range(1e9) {}", `"${"${x}"}"`, "let s = \"a\"\nwhile true { s += s }"} {
		f.Add([]byte(s))
	}
}

func FuzzCompile(f *testing.F) {
	addProgramSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		prog, err := Compile("fuzz.kite", src, nil)
		if err != nil {
			var list syntax.ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error %T %v is not a non-empty ErrorList", err, err)
			}
			for _, e := range list {
				if e.Pos.Line < 1 || e.Pos.Col < 1 || e.Msg == "" {
					t.Fatalf("bad error %q", e.Error())
				}
			}
			return
		}
		checkProgram(t, prog)
		if err := compile.Disassemble(io.Discard, prog); err != nil {
			t.Fatal(err)
		}
		// The same text as an expression for the debugger, in the scope of every function.
		e, err := syntax.ParseExpr("fuzz.kite", src)
		if err != nil {
			return
		}
		for _, fn := range prog.Funcs {
			for _, pure := range []bool{true, false} {
				_, _ = compile.CompileExpr(prog, e, fn, fn.Entry, compile.ExprOptions{Pure: pure, IsPure: vm.IsPure})
			}
		}
	})
}

// checkProgram checks the invariants a debugger relies on.
func checkProgram(t *testing.T, p *compile.Program) {
	t.Helper()
	if len(p.Lines) != len(p.Code) {
		t.Fatalf("%d line entries for %d instructions", len(p.Lines), len(p.Code))
	}
	end := 0
	for i, fn := range p.Funcs {
		if fn.Entry != end || fn.End < fn.Entry {
			t.Fatalf("func %d %q covers %d..%d, want to start at %d", i, fn.Name, fn.Entry, fn.End, end)
		}
		end = fn.End
		if fn.NumParams > fn.NumLocals {
			t.Fatalf("func %q: %d params, %d locals", fn.Name, fn.NumParams, fn.NumLocals)
		}
		for pc := fn.Entry; pc < fn.End; pc++ {
			ins := p.Code[pc]
			switch op := compile.Op(ins); op {
			case compile.JUMP, compile.LOOP, compile.JUMPFALSE, compile.JUMPFALSEKEEP, compile.JUMPTRUEKEEP, compile.NEXT:
				if a := compile.Arg(ins); a < fn.Entry || a >= fn.End {
					t.Fatalf("pc %d: %s to %d outside %q (%d..%d)", pc, op, a, fn.Name, fn.Entry, fn.End)
				}
			case compile.LOADLOCAL, compile.STORELOCAL, compile.LOADCELL, compile.STORECELL, compile.INITCELL:
				if a := compile.Arg(ins); a >= fn.NumLocals {
					t.Fatalf("pc %d: %s %d, %q has %d locals", pc, op, a, fn.Name, fn.NumLocals)
				}
			case compile.LOADFREE, compile.STOREFREE:
				if a := compile.Arg(ins); a >= len(fn.Free) {
					t.Fatalf("pc %d: %s %d, %q has %d free variables", pc, op, a, fn.Name, len(fn.Free))
				}
			case compile.LOADGLOBAL, compile.STOREGLOBAL, compile.DEFGLOBAL:
				if a := compile.Arg(ins); a >= len(p.Globals) {
					t.Fatalf("pc %d: %s %d of %d globals", pc, op, a, len(p.Globals))
				}
			case compile.CONST:
				if a := compile.Arg(ins); a >= len(p.Consts) {
					t.Fatalf("pc %d: const %d of %d", pc, a, len(p.Consts))
				}
			case compile.CLOSURE:
				if a := compile.Arg(ins); a <= 0 || a >= len(p.Funcs) {
					t.Fatalf("pc %d: closure %d of %d funcs", pc, a, len(p.Funcs))
				}
			}
		}
		if fn.End > fn.Entry && p.Lines[fn.FirstStmt(p)].Stmt == false && fn.End-fn.Entry > 1 {
			t.Fatalf("func %q has no statement start", fn.Name)
		}
	}
	if end != len(p.Code) {
		t.Fatalf("funcs cover %d of %d instructions", end, len(p.Code))
	}
}

func FuzzRun(f *testing.F) {
	addProgramSeeds(f)
	f.Fuzz(func(t *testing.T, src []byte) {
		runBounded(t, src, false)
	})
}

func FuzzRunGenerated(f *testing.F) {
	for _, s := range []string{"", "\x00", "\x01\x02\x03\x04", "hello, kite", strings.Repeat("\xff\x10\x80", 40)} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		src := generate(data)
		if _, err := Compile("gen.kite", src, nil); err != nil {
			// The generator only makes programs that compile; a compile error of one is a
			// generator bug (or a compiler one): look at the two.
			t.Fatalf("generated program does not compile: %v\n%s", err, src)
		}
		runBounded(t, src, len(data) > 0 && data[0]%4 == 1)
	})
}

// runBounded compiles and runs src with the fuzz limits and fails if it panics, takes
// longer than runTimeout or ends with an error that is not a runtime error. With debug, a
// debugger hook stops at statements and inspects and evaluates in every frame.
func runBounded(t *testing.T, src []byte, debug bool) {
	prog, err := Compile("fuzz.kite", src, nil)
	if err != nil {
		return
	}
	m, err := vm.New(prog, vm.Options{MaxCycles: fuzzMaxCycles, MaxDepth: fuzzMaxDepth, Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	var hook *fuzzHook
	if debug {
		hook = &fuzzHook{t: t, m: m}
		m.SetHook(hook)
		m.SetTrapMode(vm.TrapStatements)
	}
	done := make(chan error, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- fmt.Errorf("panic: %v", r)
			}
		}()
		done <- m.Run()
	}()
	select {
	case err = <-done:
	case <-time.After(runTimeout):
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		t.Fatalf("run did not end within %v:\n%s\n%s", runTimeout, src, buf)
	}
	if hook != nil && hook.failure != "" {
		t.Fatalf("%s\n%s", hook.failure, src)
	}
	var re *vm.Error
	switch {
	case err == nil, errors.Is(err, vm.ErrExit):
	case errors.As(err, &re):
		if !strings.HasPrefix(re.Error(), "fuzz.kite:") && !strings.HasPrefix(re.Error(), "error: ") {
			t.Fatalf("runtime error without location: %q", re.Error())
		}
		_ = re.Trace()
	default:
		t.Fatalf("run: %v\n%s", err, src)
	}
}

// watchExprs are evaluated in every frame at the statements where fuzzHook stops.
var watchExprs = func() (es []syntax.Expr) {
	for _, src := range []string{"a", "xs", "m", "s", "a + 1", "len(xs)", "str(m)", "xs[0]", "m.k", "[a, b, s]",
		`contains(m, "k")`, "sorted(xs)", "range(1000000)", `"${a}${s}"`, "not a or b", "f(1)", "q", "p7", "v6",
		"print(1)", "fn(x) { return x }", "xs[0] = 1"} {
		if e, err := syntax.ParseExpr("watch", []byte(src)); err == nil {
			es = append(es, e)
		}
	}
	return es
}()

// fuzzHook plays a debugger: at each of its first stops it looks at every frame, reads its
// variables and evaluates watches, in pure mode (which must not change the program's
// counters) and now and then in REPL mode.
type fuzzHook struct {
	t       *testing.T
	m       *vm.VM
	stops   int
	failure string
}

func (h *fuzzHook) Trap(pc int) error {
	h.stops++
	if h.stops > 50 {
		h.m.SetTrapMode(vm.TrapNone)
		return nil
	}
	steps, cycles := h.m.Steps(), h.m.Cycles()
	for i := 0; i < h.m.NumFrames(); i++ {
		if _, ok := h.m.Frame(i); !ok {
			h.failure = fmt.Sprintf("no frame %d of %d", i, h.m.NumFrames())
			return nil
		}
		for _, v := range h.m.Locals(i) {
			_ = v.Value.String()
			if e, err := syntax.ParseExpr("watch", []byte(v.Name)); err == nil {
				if _, err := h.m.Eval(e, i, vm.EvalMode{Pure: true, Budget: 5000}); err != nil {
					h.failure = fmt.Sprintf("stop %d: frame %d: evaluating local %s: %v", h.stops, i, v.Name, err)
					return nil
				}
			}
		}
		for _, e := range watchExprs {
			_, _ = h.m.Eval(e, i, vm.EvalMode{Pure: true, Budget: 5000})
		}
	}
	for _, g := range h.m.Globals() {
		_ = g.Value.String()
	}
	if h.m.Steps() != steps || h.m.Cycles() != cycles {
		h.failure = fmt.Sprintf("pure evaluation changed the counters: steps %d -> %d, cycles %d -> %d", steps, h.m.Steps(), cycles, h.m.Cycles())
		return nil
	}
	if h.stops%7 == 0 {
		for _, e := range watchExprs {
			_, _ = h.m.Eval(e, 0, vm.EvalMode{Budget: 5000})
		}
	}
	return nil
}

func (h *fuzzHook) Exception(err *vm.Error) {
	for i := 0; i < h.m.NumFrames(); i++ {
		h.m.Locals(i)
	}
}

func (h *fuzzHook) OutOfCycles() error { return nil }

// gen writes a random valid Kite program, taking its choices from data (zeros when data
// runs out, which makes every choice the first and simplest one, so generation ends).
type gen struct {
	data  []byte
	b     bytes.Buffer
	depth int
	vars  []string // names in scope (outermost first)
	loop  int      // enclosing loops in the current function
	fn    int      // enclosing functions
	stmts int
}

func generate(data []byte) []byte {
	g := &gen{data: data, vars: []string{"a", "b", "s", "xs", "m", "f"}}
	g.b.WriteString("let a = 1\nlet b = 2.5\nlet s = \"str\"\nlet xs = [1, 2, 3]\nlet m = {\"k\": 1, 2: \"two\"}\nfn f(x) { return x }\n")
	for len(g.data) > 0 && g.stmts < 200 {
		g.stmt()
	}
	return g.b.Bytes()
}

func (g *gen) next() int {
	if len(g.data) == 0 {
		return 0
	}
	c := g.data[0]
	g.data = g.data[1:]
	return int(c)
}

func (g *gen) choose(n int) int { return g.next() % n }

func (g *gen) w(parts ...string) {
	for _, p := range parts {
		g.b.WriteString(p)
	}
}

func (g *gen) indent() { g.w(strings.Repeat("    ", g.depth)) }

func (g *gen) name() string { return g.vars[g.choose(len(g.vars))] }

func (g *gen) newName() string {
	n := fmt.Sprintf("v%d", len(g.vars))
	return n
}

func (g *gen) block() {
	g.w("{\n")
	g.depth++
	saved := len(g.vars)
	n := g.choose(4)
	for i := 0; i < n && g.depth < 8; i++ {
		g.stmt()
	}
	g.vars = g.vars[:saved]
	g.depth--
	g.indent()
	g.w("}")
}

func (g *gen) stmt() {
	g.stmts++
	g.indent()
	switch g.choose(16) {
	case 0, 1:
		v := g.newName()
		g.w("let ", v, " = ")
		g.expr(0)
		g.vars = append(g.vars, v)
	case 2:
		g.w(g.name(), " ", []string{"=", "+=", "-=", "*=", "/=", "%="}[g.choose(6)], " ")
		g.expr(0)
	case 3:
		g.w("print(")
		g.args(3)
		g.w(")")
	case 4:
		g.w("if (")
		g.expr(0)
		g.w(") ")
		g.block()
		if g.choose(2) == 0 {
			g.w(" else ")
			g.block()
		}
	case 5:
		g.w("while (")
		g.expr(0)
		g.w(") ")
		g.loop++
		g.block()
		g.loop--
	case 6, 7:
		k := g.newName()
		g.w("for ", k)
		saved := len(g.vars)
		g.vars = append(g.vars, k)
		if g.choose(2) == 0 {
			v := fmt.Sprintf("v%db", len(g.vars))
			g.w(", ", v)
			g.vars = append(g.vars, v)
		}
		g.w(" in ")
		if g.choose(2) == 0 {
			g.w("range(")
			g.args(3)
			g.w(")")
		} else {
			g.w("(")
			g.expr(0)
			g.w(")")
		}
		g.w(" ")
		g.loop++
		g.block()
		g.loop--
		g.vars = g.vars[:saved]
	case 8:
		if g.loop > 0 {
			g.w([]string{"break", "continue"}[g.choose(2)])
		} else {
			g.exprStmt()
		}
	case 9:
		if g.fn > 0 {
			g.w("return ")
			g.expr(0)
		} else {
			g.exprStmt()
		}
	case 10:
		v := g.newName()
		g.w("fn ", v, "(")
		params := g.choose(3)
		saved, savedLoop := len(g.vars), g.loop
		g.vars = append(g.vars, v)
		for i := 0; i < params; i++ {
			if i > 0 {
				g.w(", ")
			}
			p := fmt.Sprintf("p%d", len(g.vars))
			g.w(p)
			g.vars = append(g.vars, p)
		}
		g.w(") ")
		g.fn++
		g.loop = 0
		g.block()
		g.fn--
		g.loop = savedLoop
		g.vars = append(g.vars[:saved], v)
	case 11:
		g.w("(")
		g.postfix(0)
		g.w(")[")
		g.expr(1)
		g.w("] ", []string{"=", "+="}[g.choose(2)], " ")
		g.expr(0)
	case 12:
		g.w(g.name(), ".", []string{"k", "x", "y"}[g.choose(3)], " = ")
		g.expr(0)
	default:
		g.exprStmt()
	}
	g.w("\n")
}

// exprStmt writes an expression statement, in parentheses so that it cannot begin with
// '{' (a block) or 'fn' (a declaration).
func (g *gen) exprStmt() {
	g.w("(")
	g.expr(0)
	g.w(")")
}

func (g *gen) args(max int) { g.argsAt(max, 1) }

func (g *gen) argsAt(max, level int) {
	n := g.choose(max + 1)
	for i := 0; i < n; i++ {
		if i > 0 {
			g.w(", ")
		}
		g.expr(level)
	}
}

var genBuiltins = []string{"len", "str", "int", "float", "type", "range", "keys", "values", "contains",
	"abs", "min", "max", "floor", "sqrt", "upper", "lower", "split", "join", "substr", "slice", "sorted",
	"format", "print", "eprint", "append", "pop", "delete", "map", "filter", "random", "assert", "time_ns"}

func (g *gen) expr(level int) {
	if level > 4 {
		g.primary(level)
		return
	}
	switch g.choose(10) {
	case 0, 1:
		g.intExpr(level + 1)
	case 2: // operands in parentheses: comparisons do not chain
		g.w("(")
		g.expr(level + 1)
		g.w(") ", []string{"+", "-", "*", "/", "%", "==", "!=", "<", "<=", ">", ">=", "and", "or"}[g.choose(13)], " (")
		g.expr(level + 1)
		g.w(")")
	case 3:
		g.w("(")
		g.intExpr(level + 1)
		g.w(" ", []string{"==", "!=", "<", "<=", ">", ">="}[g.choose(6)], " ")
		g.intExpr(level + 1)
		g.w(")")
	case 4:
		g.w([]string{"-", "not "}[g.choose(2)])
		g.postfix(level + 1)
	default:
		g.postfix(level + 1)
	}
}

// intExpr writes an expression that is usually an int, so that generated programs get
// further than their first operation more often.
func (g *gen) intExpr(level int) {
	if level > 5 {
		g.w([]string{"a", "1", "len(xs)"}[g.choose(3)])
		return
	}
	switch g.choose(8) {
	case 0:
		g.w([]string{"0", "1", "2", "3", "-1", "10", "255", "9223372036854775807"}[g.choose(8)])
	case 1:
		g.w([]string{"a", "len(xs)", "len(s)", "len(m)", "xs[0]", "m.k"}[g.choose(6)])
	case 2, 3:
		g.intExpr(level + 1)
		g.w(" ", []string{"+", "-", "*", "/", "%"}[g.choose(5)], " ")
		g.intExpr(level + 1)
	case 4:
		g.w("f(")
		g.intExpr(level + 1)
		g.w(")")
	case 5:
		g.w([]string{"abs", "int", "floor"}[g.choose(3)], "(")
		g.intExpr(level + 1)
		g.w(")")
	case 6:
		g.w("(")
		g.intExpr(level + 1)
		g.w(")")
	default:
		g.w(g.name())
	}
}

func (g *gen) postfix(level int) {
	g.primary(level)
	for level < 6 && g.choose(4) == 3 {
		switch g.choose(3) {
		case 0:
			g.w("[")
			g.expr(level + 1)
			g.w("]")
		case 1:
			g.w(".", []string{"k", "x"}[g.choose(2)])
		case 2:
			g.w("(")
			g.argsAt(2, level+1)
			g.w(")")
		}
	}
}

func (g *gen) primary(level int) {
	if level > 5 {
		g.w(g.name())
		return
	}
	switch g.choose(14) {
	case 0, 1, 2:
		g.w(g.name())
	case 3:
		g.w([]string{"0", "1", "-1", "7", "9223372036854775807", "0x10", "1_000", "100000000"}[g.choose(8)])
	case 4:
		g.w([]string{"0.0", "1.5", "-2.5", "1e300", "1e-300", "0.1"}[g.choose(6)])
	case 5:
		g.w([]string{`""`, `"a"`, `"héllo😀"`, `"x\n\t\"y"`, `"k"`, `"${a}-${s}"`, `"{} {}"`, `" a b "`}[g.choose(8)])
	case 6:
		g.w([]string{"true", "false", "nil"}[g.choose(3)])
	case 7:
		g.w("[")
		g.argsAt(3, level+1)
		g.w("]")
	case 8:
		g.w("{")
		n := g.choose(3)
		for i := 0; i < n; i++ {
			if i > 0 {
				g.w(", ")
			}
			g.w([]string{`"k"`, "1", "true", "x", `"z"`}[g.choose(5)], ": ")
			g.expr(level + 1)
		}
		g.w("}")
	case 9, 10:
		g.w(genBuiltins[g.choose(len(genBuiltins))], "(")
		g.argsAt(3, level+1)
		g.w(")")
	case 11:
		g.w("fn(", "q", ") { return ")
		saved := len(g.vars)
		g.vars = append(g.vars, "q")
		g.expr(level + 1)
		g.vars = g.vars[:saved]
		g.w(" }")
	case 12:
		g.w("(")
		g.expr(level + 1)
		g.w(")")
	case 13:
		g.w(`"${`)
		g.expr(level + 1)
		g.w(`}"`)
	}
}
