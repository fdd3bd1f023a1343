package bench

// Kite against its peers: the same five programs (programs/*.kite, *.lua, *.star, *.js) run
// side by side in one `go test -bench` run, each checked against a checksum computed in Go,
// then a table of ns/op and the ratio Kite/peer printed after the run (see TestMain). The
// Lua programs run twice: in gopher-lua (embedded) and in C Lua 5.4 (Debian's lua5.4, a
// whole process per run; ./setup.sh installs it).
//
//	cd bench && ./setup.sh && go test -run '^$' -bench . -benchmem -count 3

import (
	"embed"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/dop251/goja"
	lua "github.com/yuin/gopher-lua"
	luaparse "github.com/yuin/gopher-lua/parse"
	"go.starlark.net/starlark"
	"go.starlark.net/syntax"

	"github.com/polydbg/polydbg/kite"
	"github.com/polydbg/polydbg/kite/compile"
	"github.com/polydbg/polydbg/kite/vm"
)

//go:embed programs
var programFS embed.FS

// peerPrograms are the programs of the comparison, in table order.
var peerPrograms = []string{"fib", "loop", "strings", "wordcount", "callbacks"}

// peerLangs are the languages, Kite first; the table's ratios are Kite/peer.
var peerLangs = []string{"kite", "lua", "starlark", "goja", "lua5.4"}

var langExt = map[string]string{"kite": ".kite", "lua": ".lua", "starlark": ".star", "goja": ".js", "lua5.4": ".lua"}

// wantChecksum is each program's result, computed in Go.
var wantChecksum = map[string]int64{
	"fib":       goFib(30),
	"loop":      goLoop(10_000_000),
	"strings":   goStrings(200_000),
	"wordcount": goWordCount(200_000),
	"callbacks": goCallbacks(1_000_000),
}

func goFib(n int64) int64 {
	if n < 2 {
		return n
	}
	return goFib(n-1) + goFib(n-2)
}

func goLoop(n int64) int64 {
	var s int64
	for i := int64(0); i < n; i++ {
		if i%3 == 0 {
			s += i * 2
		} else {
			s -= i
		}
	}
	return s
}

func goStrings(n int) int64 {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = "k" + strconv.Itoa(i)
	}
	return int64(len(strings.Join(parts, ",")))
}

var goWords = []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda"}

func goWordCount(n int) int64 {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = goWords[(i*7+i%13)%11]
	}
	counts := map[string]int64{}
	for _, w := range strings.Split(strings.Join(parts, " "), " ") {
		counts[w]++
	}
	var s int64
	for j, w := range goWords {
		s += counts[w] * int64(j+1)
	}
	return s*100 + int64(len(counts))
}

func goCallbacks(n int64) int64 {
	var s, c int64
	for x := int64(0); x < n; x++ {
		if y := x*3 + 1; y%2 == 0 {
			s += y
			c++
		}
	}
	return s + c
}

// runner runs one compiled program once and returns its global result.
type runner func() (int64, error)

var (
	runnersMu sync.Mutex
	runners   = map[string]runner{}
)

// peerRunner compiles programs/NAME.EXT for lang once and returns a function that runs it
// in a fresh interpreter (a VM, an LState, a Thread, a Runtime) per call.
func peerRunner(tb testing.TB, name, lang string) runner {
	tb.Helper()
	runnersMu.Lock()
	defer runnersMu.Unlock()
	key := name + "/" + lang
	if r, ok := runners[key]; ok {
		return r
	}
	file := name + langExt[lang]
	src, err := programFS.ReadFile("programs/" + file)
	if err != nil {
		tb.Fatal(err)
	}
	var r runner
	switch lang {
	case "kite":
		r, err = kiteRunner(file, src)
	case "lua":
		r, err = luaRunner(file, src)
	case "starlark":
		r, err = starlarkRunner(file, src)
	case "goja":
		r, err = gojaRunner(file, src)
	case "lua5.4":
		r, err = cLuaRunner(file, src)
	}
	if err != nil {
		tb.Fatalf("%s: %v", file, err)
	}
	runners[key] = r
	return r
}

func kiteRunner(file string, src []byte) (runner, error) {
	prog, err := kite.Compile(file, src, nil)
	if err != nil {
		return nil, err
	}
	return func() (int64, error) { return runKite(prog) }, nil
}

// runKite runs prog in a new VM and returns its global result.
func runKite(prog *compile.Program) (int64, error) {
	m, err := vm.New(prog, vm.Options{Stdout: io.Discard})
	if err != nil {
		return 0, err
	}
	if err := m.Run(); err != nil {
		return 0, err
	}
	return kiteResult(m)
}

func kiteResult(m *vm.VM) (int64, error) {
	for _, g := range m.Globals() {
		if g.Name == "result" {
			if g.Value.Kind() != vm.IntKind {
				return 0, fmt.Errorf("result is a %s", g.Value.TypeName())
			}
			return g.Value.Int(), nil
		}
	}
	return 0, fmt.Errorf("no global result")
}

func luaRunner(file string, src []byte) (runner, error) {
	chunk, err := luaparse.Parse(strings.NewReader(string(src)), file)
	if err != nil {
		return nil, err
	}
	proto, err := lua.Compile(chunk, file)
	if err != nil {
		return nil, err
	}
	return func() (int64, error) {
		// table.concat pushes every piece (and separator) on the registry: let it grow
		// past its default 5,120 slots, in big steps (growth is linear and copies).
		L := lua.NewState(lua.Options{RegistryMaxSize: 1 << 20, RegistryGrowStep: 1 << 16})
		defer L.Close()
		L.Push(L.NewFunctionFromProto(proto))
		if err := L.PCall(0, lua.MultRet, nil); err != nil {
			return 0, err
		}
		n, ok := L.GetGlobal("result").(lua.LNumber)
		if !ok || float64(n) != math.Trunc(float64(n)) {
			return 0, fmt.Errorf("result is %v", L.GetGlobal("result"))
		}
		return int64(n), nil
	}, nil
}

func starlarkRunner(file string, src []byte) (runner, error) {
	opts := &syntax.FileOptions{Recursion: true} // fib is recursive
	_, prog, err := starlark.SourceProgramOptions(opts, file, src, func(string) bool { return false })
	if err != nil {
		return nil, err
	}
	return func() (int64, error) {
		th := &starlark.Thread{Name: "bench"}
		globals, err := prog.Init(th, nil)
		if err != nil {
			return 0, err
		}
		i, ok := globals["result"].(starlark.Int)
		if !ok {
			return 0, fmt.Errorf("result is %v", globals["result"])
		}
		n, ok := i.Int64()
		if !ok {
			return 0, fmt.Errorf("result %v overflows", i)
		}
		return n, nil
	}, nil
}

func gojaRunner(file string, src []byte) (runner, error) {
	prog, err := goja.Compile(file, string(src), false)
	if err != nil {
		return nil, err
	}
	return func() (int64, error) {
		rt := goja.New()
		if _, err := rt.RunProgram(prog); err != nil {
			return 0, err
		}
		v := rt.Get("result")
		f := v.ToFloat()
		if f != math.Trunc(f) {
			return 0, fmt.Errorf("result is %v", v)
		}
		return v.ToInteger(), nil
	}, nil
}

// TestPeerChecksums runs every program in every language once and compares its result
// with Go's.
func TestPeerChecksums(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every program (a few seconds)")
	}
	for _, name := range peerPrograms {
		for _, lang := range peerLangs {
			t.Run(name+"/"+lang, func(t *testing.T) {
				got, err := peerRunner(t, name, lang)()
				if err != nil {
					t.Fatal(err)
				}
				if want := wantChecksum[name]; got != want {
					t.Fatalf("checksum %d, want %d", got, want)
				}
			})
		}
	}
}

func benchPeers(b *testing.B, name string) {
	for _, lang := range peerLangs {
		b.Run(lang, func(b *testing.B) {
			run := peerRunner(b, name, lang)
			want := wantChecksum[name]
			b.ResetTimer()
			cpu0, cpuOK := cpuTime()
			for i := 0; i < b.N; i++ {
				got, err := run()
				if err != nil {
					b.Fatal(err)
				}
				if got != want {
					b.Fatalf("checksum %d, want %d", got, want)
				}
			}
			cpu1, _ := cpuTime()
			record(b)
			if cpuOK {
				cpu := float64((cpu1 - cpu0).Nanoseconds()) / float64(b.N)
				b.ReportMetric(cpu, "cpu-ns/op")
				recordValue(b, "cpu", cpu)
			}
		})
	}
}

func BenchmarkFib(b *testing.B)       { benchPeers(b, "fib") }
func BenchmarkLoop(b *testing.B)      { benchPeers(b, "loop") }
func BenchmarkStrings(b *testing.B)   { benchPeers(b, "strings") }
func BenchmarkWordCount(b *testing.B) { benchPeers(b, "wordcount") }
func BenchmarkCallbacks(b *testing.B) { benchPeers(b, "callbacks") }

// Results: each sub-benchmark's ns/op, one figure per round. The testing package calls a
// benchmark with b.N = 1 first in every round (-count), then with growing b.N; the last
// call of a round is the figure it prints, so a call with b.N == 1 starts a new round and
// the others replace the round's figure.
var (
	resultsMu sync.Mutex
	results   = map[string][]float64{} // b.Name() -> ns/op per round
)

func record(b *testing.B) {
	recordAs(b, b.Name(), float64(b.Elapsed().Nanoseconds())/float64(b.N))
}

// recordValue records a benchmark's own metric as "NAME:metric".
func recordValue(b *testing.B, metric string, v float64) { recordAs(b, b.Name()+":"+metric, v) }

func recordAs(b *testing.B, key string, v float64) {
	resultsMu.Lock()
	defer resultsMu.Unlock()
	r := results[key]
	if b.N == 1 || len(r) == 0 {
		r = append(r, v)
	} else {
		r[len(r)-1] = v
	}
	results[key] = r
}

// nsPerOp is the fastest round of a sub-benchmark, or false if it did not run. On a
// shared machine other processes only ever add time, so the fastest round is the figure
// least disturbed by them.
func nsPerOp(name string) (float64, bool) {
	resultsMu.Lock()
	defer resultsMu.Unlock()
	r := results[name]
	if len(r) == 0 {
		return 0, false
	}
	return slices.Min(r), true
}

// medianOf is the median over the rounds of a metric recorded with recordValue, or false.
func medianOf(name string) (float64, bool) {
	resultsMu.Lock()
	defer resultsMu.Unlock()
	if len(results[name]) == 0 {
		return 0, false
	}
	return median(results[name]), true
}

// reports print tables after the benchmarks ran; a file of the package may add its own.
var reports []func(w io.Writer)

func TestMain(m *testing.M) {
	if mode := os.Getenv(receiverEnv); mode != "" { // a bare receiver of lantern_test.go
		os.Exit(runReceiver(mode, os.Getenv(receiverAddrEnv)))
	}
	code := m.Run()
	for _, r := range reports {
		r(os.Stdout)
	}
	os.Exit(code)
}

func init() { reports = append(reports, peerTable, debuggerTable) }

var benchNames = map[string]string{
	"fib": "BenchmarkFib", "loop": "BenchmarkLoop", "strings": "BenchmarkStrings",
	"wordcount": "BenchmarkWordCount", "callbacks": "BenchmarkCallbacks",
}

// peerTable prints ns/op of every program and language and the ratio Kite/peer, in
// wall-clock time and in CPU time.
func peerTable(w io.Writer) {
	peerTableOf(w, "", "wall-clock ns/op")
	peerTableOf(w, ":cpu", "CPU ns/op of the process, garbage collector included")
}

func peerTableOf(w io.Writer, suffix, what string) {
	var rows [][]string
	for _, name := range peerPrograms {
		row := []string{name}
		var ns [5]float64
		var ok [5]bool
		for i, lang := range peerLangs {
			ns[i], ok[i] = nsPerOp(benchNames[name] + "/" + lang + suffix)
			row = append(row, fmtNs(ns[i], ok[i]))
		}
		any := false
		for i := 1; i < len(peerLangs); i++ {
			if ok[0] && ok[i] {
				row = append(row, fmt.Sprintf("%.2f", ns[0]/ns[i]))
			} else {
				row = append(row, "-")
			}
			any = any || ok[i]
		}
		if any || ok[0] {
			rows = append(rows, row)
		}
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "\nKite against peers (%s, fastest of the rounds; ratio = Kite/peer, < 1.00: Kite is faster)\n", what)
	printTable(w, []string{"program", "kite", "gopher-lua", "starlark", "goja", "lua5.4", "kite/lua", "kite/starlark", "kite/goja", "kite/lua5.4"}, rows)
}

func fmtNs(ns float64, ok bool) string {
	if !ok {
		return "-"
	}
	return strconv.FormatFloat(math.Round(ns), 'f', 0, 64)
}

// printTable prints a Markdown table, ready to paste into docs/PERFORMANCE.md.
func printTable(w io.Writer, head []string, rows [][]string) {
	width := make([]int, len(head))
	for i, h := range head {
		width[i] = len(h)
	}
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len(c))
		}
	}
	line := func(cells []string) {
		var sb strings.Builder
		sb.WriteString("|")
		for i, c := range cells {
			if i == 0 {
				fmt.Fprintf(&sb, " %-*s |", width[i], c)
			} else {
				fmt.Fprintf(&sb, " %*s |", width[i], c)
			}
		}
		fmt.Fprintln(w, sb.String())
	}
	line(head)
	sep := make([]string, len(head))
	for i := range sep {
		if i == 0 {
			sep[i] = strings.Repeat("-", width[i])
		} else {
			sep[i] = strings.Repeat("-", width[i]-1) + ":"
		}
	}
	line(sep)
	for _, r := range rows {
		line(r)
	}
}
