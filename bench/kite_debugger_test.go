package bench

// The debugger's own cost on the Kite VM: the integer loop with the engine armed (10 line
// breakpoints on lines never reached, 2 watches) against the plain VM, and the cost per hit
// of a conditional breakpoint whose condition is false.

import (
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/backend/kitevm"
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/kite"
	"github.com/polydbg/polydbg/kite/compile"
)

// neverCalled is appended to programs/loop.kite: the armed engine's breakpoints sit on its
// ten statements, which never run.
const neverCalled = `
// Never called: the armed engine's breakpoints sit on its statements.
fn never(x) {
    let a = x + 1
    let b = a * 2
    let c = b - a
    let d = c * c
    let e = d % 7
    a += e
    b -= d
    c = a + b
    d = c * 3
    return a + b + c + d
}
`

// armedSource is the loop program with neverCalled, and the lines of never's ten statements.
func armedSource(tb testing.TB) ([]byte, []int) {
	src, err := programFS.ReadFile("programs/loop.kite")
	if err != nil {
		tb.Fatal(err)
	}
	// loop.kite ends with a newline; then come a blank line, the comment, "fn never(x) {"
	// and the ten statements.
	first := strings.Count(string(src), "\n") + 4
	var lines []int
	for k := range 10 {
		lines = append(lines, first+k)
	}
	return append(src, neverCalled...), lines
}

// The watches a front end shows; they are evaluated at stops only (here the entry stop).
var armedWatches = []string{"result", "len(str(result))"}

// condIters is the iterations of the conditional breakpoint's loop; condLine is the line of
// the statement it sits on.
const (
	condIters = 1_000_000
	condLine  = 5
)

var condSource = fmt.Sprintf(`// A loop with a conditional breakpoint (line %d) whose condition is never true.
fn work(n) {
    let s = 0
    for i in range(0, n) {
        s += i
    }
    return s
}

let result = work(%d)
`, condLine, condIters)

// runEngine runs prog under an engine session with breakpoints; with watches it stops on
// entry, evaluates them as a front end does at each stop, and continues. Any other stop is
// an error. It returns the program's result.
func runEngine(tb testing.TB, prog *compile.Program, bps []engine.BreakpointSpec, watches []string) int64 {
	n, _ := runEngineStops(tb, prog, bps, watches, 0)
	return n
}

// newKiteSession makes an engine session of prog, subscribed to.
func newKiteSession(tb testing.TB, prog *compile.Program) (*kitevm.Target, *engine.Session, *engine.Subscription) {
	tg, err := kitevm.New(prog, kitevm.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	s := engine.NewSession(tg)
	return tg, s, s.Subscribe()
}

// runEngineStops is runEngine allowing up to maxStops breakpoint stops (continued at once);
// it also returns the lines of those stops.
func runEngineStops(tb testing.TB, prog *compile.Program, bps []engine.BreakpointSpec, watches []string, maxStops int) (int64, []int) {
	tg, s, sub := newKiteSession(tb, prog)
	defer s.Close()
	for _, spec := range bps {
		bp, err := s.SetBreakpoint(spec)
		if err != nil || !bp.Verified || bp.Location.Line != spec.Line {
			tb.Fatalf("breakpoint at line %d: %v (verified %v, bound at line %d)", spec.Line, err, bp.Verified, bp.Location.Line)
		}
	}
	if err := s.Start(len(watches) > 0); err != nil {
		tb.Fatal(err)
	}
	exit := -1
	var stops []int
	var output strings.Builder
	for e := range sub.Events() {
		switch e.Kind {
		case engine.EventStopped:
			if e.Stop.Reason != engine.ReasonEntry {
				if e.Stop.Reason != engine.ReasonBreakpoint || len(stops) >= maxStops {
					tb.Fatalf("unexpected stop: %s at line %d %s", e.Stop.Reason, e.Stop.Location.Line, e.Stop.Text)
				}
				stops = append(stops, e.Stop.Location.Line)
			}
			for _, w := range watches {
				_, _ = s.Evaluate(0, w, engine.EvalMode{Pure: true}) // "result" is not defined yet
			}
			if err := s.Continue(); err != nil {
				tb.Fatal(err)
			}
		case engine.EventOutput:
			output.WriteString(e.Text)
		case engine.EventExited:
			exit = e.ExitCode
		}
	}
	<-tg.Done()
	if exit != 0 {
		tb.Fatalf("exit %d: %s", exit, output.String())
	}
	n, err := kiteResult(tg.VM())
	if err != nil {
		tb.Fatal(err)
	}
	return n, stops
}

func compileKite(tb testing.TB, file string, src []byte) *compile.Program {
	prog, err := kite.Compile(file, src, nil)
	if err != nil {
		tb.Fatal(err)
	}
	return prog
}

func armedBreakpoints(lines []int) []engine.BreakpointSpec {
	var bps []engine.BreakpointSpec
	for _, l := range lines {
		bps = append(bps, engine.BreakpointSpec{Kind: engine.LineBreakpoint, Line: l})
	}
	return bps
}

func condBreakpoint() []engine.BreakpointSpec {
	return []engine.BreakpointSpec{{Kind: engine.LineBreakpoint, Line: condLine, Condition: "i < 0"}}
}

func goSum(n int64) int64 { return n * (n - 1) / 2 }

// TestDebuggerPrograms checks that the debugger benchmarks' programs run to their result
// under the engine, with no stop but the entry.
func TestDebuggerPrograms(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the 10M loop")
	}
	src, lines := armedSource(t)
	if got, want := runEngine(t, compileKite(t, "loop.kite", src), armedBreakpoints(lines), armedWatches), wantChecksum["loop"]; got != want {
		t.Fatalf("armed loop: %d, want %d", got, want)
	}
	if got, want := runEngine(t, compileKite(t, "cond.kite", []byte(condSource)), condBreakpoint(), nil), goSum(condIters); got != want {
		t.Fatalf("conditional loop: %d, want %d", got, want)
	}
	// The breakpoint is really evaluated at every iteration: a condition true once stops once.
	once := condBreakpoint()
	once[0].Condition = "i == 500"
	if _, stops := runEngineStops(t, compileKite(t, "cond.kite", []byte(condSource)), once, nil, 1); len(stops) != 1 || stops[0] != condLine {
		t.Fatalf("condition true once: stops at lines %v, want [%d]", stops, condLine)
	}
}

// The two sides of each measure run interleaved, in alternating order, inside one
// benchmark, so that the load of a shared machine falls on both alike; each side's time is
// summed apart and reported as a metric (vm-ns/op, engine-ns/op, ...).

// side is the mean time of one side of a pair: wall-clock and, where measured, the CPU
// time of the process.
type side struct{ wall, cpu float64 }

// pairs runs first and second b.N times each, interleaved, and returns their mean times.
func pairs(b *testing.B, first, second func()) (side, side) {
	var wall, cpu [2]time.Duration
	f := [2]func(){first, second}
	cpuOK := true
	for i := 0; i < b.N; i++ {
		for k := range 2 {
			j := k ^ (i & 1) // alternate the order
			c0, ok0 := cpuTime()
			t0 := time.Now()
			f[j]()
			wall[j] += time.Since(t0)
			c1, ok1 := cpuTime()
			cpu[j] += c1 - c0
			cpuOK = cpuOK && ok0 && ok1
		}
	}
	mean := func(j int) side {
		s := side{wall: float64(wall[j].Nanoseconds()) / float64(b.N), cpu: -1}
		if cpuOK {
			s.cpu = float64(cpu[j].Nanoseconds()) / float64(b.N)
		}
		return s
	}
	return mean(0), mean(1)
}

// reportPair reports and records the two sides of a pair and their ratio (or, with per > 0,
// their difference divided by per, as unit).
func reportPair(b *testing.B, names [2]string, a, c side, per float64, unit string) {
	for _, m := range []struct {
		suffix string
		a, c   float64
	}{{"", a.wall, c.wall}, {"cpu-", a.cpu, c.cpu}} {
		if m.a < 0 || m.c < 0 {
			continue
		}
		b.ReportMetric(m.a, m.suffix+names[0]+"-ns/op")
		b.ReportMetric(m.c, m.suffix+names[1]+"-ns/op")
		recordValue(b, m.suffix+names[0], m.a)
		recordValue(b, m.suffix+names[1], m.c)
		var v float64
		if per > 0 {
			v = (m.c - m.a) / per
		} else {
			v = m.c / m.a
		}
		b.ReportMetric(v, m.suffix+unit)
		recordValue(b, m.suffix+"cost", v)
	}
}

// BenchmarkArmed: the integer loop on the plain VM, and under the engine with 10 breakpoints
// that are never reached and 2 watches. An op is one run of each.
func BenchmarkArmed(b *testing.B) {
	src, lines := armedSource(b)
	prog := compileKite(b, "loop.kite", src)
	want := wantChecksum["loop"]
	bps := armedBreakpoints(lines)
	vm, eng := pairs(b, func() {
		if got, err := runKite(prog); err != nil || got != want {
			b.Fatalf("result %d (%v), want %d", got, err, want)
		}
	}, func() {
		if got := runEngine(b, prog, bps, armedWatches); got != want {
			b.Fatalf("result %d, want %d", got, want)
		}
	})
	reportPair(b, [2]string{"vm", "engine"}, vm, eng, 0, "engine/vm")
}

// BenchmarkCondBreak: a loop of condIters iterations under the engine without a
// breakpoint, and with a breakpoint in it whose condition (i < 0) is always false. An op is
// one run of each; ns/hit is their difference divided by condIters.
func BenchmarkCondBreak(b *testing.B) {
	prog := compileKite(b, "cond.kite", []byte(condSource))
	want := goSum(condIters)
	bps := condBreakpoint()
	none, cond := pairs(b, func() {
		if got := runEngine(b, prog, nil, nil); got != want {
			b.Fatalf("result %d, want %d", got, want)
		}
	}, func() {
		if got := runEngine(b, prog, bps, nil); got != want {
			b.Fatalf("result %d, want %d", got, want)
		}
	})
	reportPair(b, [2]string{"none", "false"}, none, cond, condIters, "ns/hit")
}

// debuggerTable prints the armed engine's ratio and the cost of a false conditional hit.
func debuggerTable(w io.Writer) {
	var rows [][]string
	for _, clock := range []struct{ prefix, name string }{{"", "wall"}, {"cpu-", "CPU"}} {
		get := func(bench, metric string) (float64, bool) { return medianOf(bench + ":" + clock.prefix + metric) }
		vm, ok1 := get("BenchmarkArmed", "vm")
		eng, ok2 := get("BenchmarkArmed", "engine")
		r, ok3 := get("BenchmarkArmed", "cost")
		if ok1 && ok2 && ok3 {
			rows = append(rows, []string{"integer loop (10M): plain VM / engine armed", clock.name, fmtNs(vm, true), fmtNs(eng, true),
				fmt.Sprintf("ratio %.3f", r), "≤ 1.05", metOrNot(r <= 1.05)})
		}
	}
	for _, clock := range []struct{ prefix, name string }{{"", "wall"}, {"cpu-", "CPU"}} {
		get := func(bench, metric string) (float64, bool) { return medianOf(bench + ":" + clock.prefix + metric) }
		none, ok1 := get("BenchmarkCondBreak", "none")
		cond, ok2 := get("BenchmarkCondBreak", "false")
		hit, ok3 := get("BenchmarkCondBreak", "cost")
		if ok1 && ok2 && ok3 {
			rows = append(rows, []string{fmt.Sprintf("loop (%d): no breakpoint / false condition", condIters), clock.name, fmtNs(none, true), fmtNs(cond, true),
				fmt.Sprintf("%.0f ns/hit", hit), "< 200 ns/hit", metOrNot(hit < 200)})
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(w, "\nDebugger overhead (ns/op, median of rounds; both sides run interleaved)")
	printTable(w, []string{"measure", "clock", "without", "with", "cost", "goal", "met"}, rows)
}

func metOrNot(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}
