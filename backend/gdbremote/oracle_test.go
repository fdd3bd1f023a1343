package gdbremote

// gdb is the oracle: the corpus (internal/firmware/testdata/corpus) built at each -O level,
// natively under gdbserver and as Cortex-M3 firmware under QEMU, stops at the same
// breakpoints once under polydbg and once under gdb (batch mode, driven by this test), and
// every backtrace (function and line of each frame) and every parameter and local of every
// frame (name and value) are compared.

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/firmware"
	"github.com/polydbg/polydbg/internal/realparts"
)

// oracleFuncs are the corpus functions the oracle breaks in.
// corpus_done, called when corpus_run returns, is the last stop.
// deep is called from an inlined copy of via_inline.
var oracleFuncs = []string{"leaf", "factorial", "many", "mix", "walk", "use_shape", "bits", "counted", "deep", "corpus_done"}

// oracleStops bounds the stops of a build (3 rounds of corpus_run make 37 at -O0).
const oracleStops = 60

// oFrame is one frame of a stop, as either debugger reports it.
type oFrame struct {
	fn   string
	line int
	vars map[string][]string // name -> values (a name can repeat in nested blocks)
}

type oracleTally struct {
	builds, stops, frames, frameAgree, vars, varAgree int
	disagreements                                     []string
}

func (o *oracleTally) disagree(format string, args ...any) {
	o.disagreements = append(o.disagreements, fmt.Sprintf(format, args...))
}

func TestGDBOracle(t *testing.T) {
	realparts.Need(t, "gdb", "gdb-multiarch", "gdbserver", "qemu-system-arm")
	var tally oracleTally
	var builds []firmware.Variant
	for _, o := range firmware.Opts {
		builds = append(builds, firmware.Variant{Native: true, Opt: o}, firmware.Variant{Opt: o})
	}
	// DWARF 4: location lists in .debug_loc
	builds = append(builds, firmware.Variant{Native: true, Opt: "-O2", DWARF4: true}, firmware.Variant{Opt: "-O2", DWARF4: true})
	for _, b := range builds {
		elf := firmware.BuildCorpus(t, b)
		ours := polydbgStops(t, b, elf)
		theirs := gdbStops(t, b, elf)
		tally.builds++
		compareStops(&tally, b, ours, theirs)
	}
	report := fmt.Sprintf("gdb oracle: %d builds, %d stops, backtrace frames %d/%d agree, variables %d/%d agree (%.2f%%)",
		tally.builds, tally.stops, tally.frameAgree, tally.frames, tally.varAgree, tally.vars,
		100*float64(tally.varAgree)/float64(max(tally.vars, 1)))
	t.Log(report)
	for _, d := range tally.disagreements {
		t.Log("  " + d)
	}
	if tally.frameAgree != tally.frames {
		t.Errorf("backtraces disagree")
	}
	if tally.vars < 1000 || float64(tally.varAgree) < 0.99*float64(tally.vars) {
		t.Errorf("variables: %d of %d agree", tally.varAgree, tally.vars)
	}
}

func compareStops(o *oracleTally, b firmware.Variant, ours, theirs [][]oFrame) {
	if len(ours) != len(theirs) {
		o.disagree("%s: polydbg stopped %d times, gdb %d", b, len(ours), len(theirs))
	}
	for i := 0; i < min(len(ours), len(theirs)); i++ {
		o.stops++
		us, them := ours[i], theirs[i]
		if len(us) != len(them) {
			o.disagree("%s stop %d: %d frames (%s), gdb %d (%s)", b, i, len(us), frameList(us), len(them), frameList(them))
		}
		for k := 0; k < max(len(us), len(them)); k++ {
			o.frames++
			if k >= len(us) || k >= len(them) {
				continue
			}
			u, g := us[k], them[k]
			if u.fn != g.fn || u.line != g.line {
				o.disagree("%s stop %d frame %d: %s:%d, gdb %s:%d", b, i, k, u.fn, u.line, g.fn, g.line)
				continue
			}
			o.frameAgree++
			var names []string
			for n := range g.vars {
				names = append(names, n)
			}
			for n := range u.vars {
				if _, ok := g.vars[n]; !ok {
					names = append(names, n)
				}
			}
			sort.Strings(names)
			for _, n := range names {
				uv, gv := u.vars[n], g.vars[n]
				for j := 0; j < max(len(uv), len(gv)); j++ {
					o.vars++
					a, z := "(none)", "(none)"
					if j < len(uv) {
						a = uv[j]
					}
					if j < len(gv) {
						z = gv[j]
					}
					if a == z {
						o.varAgree++
					} else {
						o.disagree("%s stop %d %s: %s = %s, gdb %s", b, i, u.fn, n, a, z)
					}
				}
			}
		}
	}
}

func frameList(fs []oFrame) string {
	var s []string
	for _, f := range fs {
		s = append(s, fmt.Sprintf("%s:%d", f.fn, f.line))
	}
	return strings.Join(s, " ")
}

// polydbgStops runs the build under polydbg and records each stop.
func polydbgStops(t *testing.T, b firmware.Variant, elf string) [][]oFrame {
	ctx := testCtx(t, 60*time.Second)
	var tg *Target
	var err error
	if b.Native {
		tg, err = LaunchNative(ctx, elf, nil, Config{})
	} else {
		tg, err = StartQEMUTarget(ctx, "mps2-an385", elf, Config{})
	}
	if err != nil {
		t.Fatal(err)
	}
	x := newSess(t, tg)
	for _, fn := range oracleFuncs {
		if _, err := x.s.SetBreakpoint(engine.BreakpointSpec{Kind: engine.FunctionBreakpoint, Function: fn}); err != nil {
			t.Fatal(err)
		}
	}
	if err := x.s.Start(false); err != nil {
		t.Fatal(err)
	}
	var stops [][]oFrame
	for i := 0; i < oracleStops; i++ {
		e := x.next(engine.EventStopped, engine.EventExited, engine.EventTerminated)
		if e.Kind != engine.EventStopped {
			break
		}
		frames := frameVars(t, tg)
		stops = append(stops, frames)
		if frames[0].fn == "corpus_done" {
			break
		}
		if err := x.s.Resume(engine.Continue); err != nil {
			t.Fatal(err)
		}
	}
	x.s.Terminate()
	return stops
}

// frameVars is every frame of the stopped target with its parameters and locals.
func frameVars(t *testing.T, tg *Target) []oFrame {
	t.Helper()
	fs, err := tg.Stack()
	if err != nil {
		t.Fatal(err)
	}
	var frames []oFrame
	for k, f := range fs {
		of := oFrame{fn: f.Func, line: f.Location.Line, vars: map[string][]string{}}
		scopes, err := tg.Scopes(k)
		if err != nil {
			t.Fatal(err)
		}
		vars, err := tg.Variables(scopes[0].Ref)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range vars {
			of.vars[v.Name] = append(of.vars[v.Name], v.Value)
		}
		frames = append(frames, of)
	}
	return frames
}

var (
	gdbFrameLineRE = regexp.MustCompile(`^#(\d+)\s+(?:0x[0-9a-f]+ in )?(\S+) \((.*)\) at (\S+):(\d+)$`)
	gdbLocalRE     = regexp.MustCompile(`^        (\w+) = (.*)$`)
)

// gdbStops runs the build under gdb and parses `bt full` at each stop.
func gdbStops(t *testing.T, b firmware.Variant, elf string) [][]oFrame {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var stub *Stub
	var err error
	gdb := "gdb"
	if b.Native {
		stub, err = StartGdbserver(ctx, elf, nil, StubOptions{})
	} else {
		gdb = "gdb-multiarch"
		stub, err = StartQEMU(ctx, "mps2-an385", elf, StubOptions{})
	}
	if err != nil {
		t.Fatal(err)
	}
	defer stub.Stop()
	script := []string{"set pagination off", "set width 0", "set confirm off", "set print pretty off",
		"set print frame-arguments all", "set print entry-values no",
		"set print elements 200",
		"target remote " + stub.Addr}
	for _, fn := range oracleFuncs {
		script = append(script, "break "+fn)
	}
	script = append(script, "set $n = 0", fmt.Sprintf("while $n < %d", oracleStops),
		"continue", "bt full", "echo ====STOP\\n", "set $n = $n + 1",
		"if (long)$pc >= (long)&corpus_done && (long)$pc < (long)&corpus_done + 16", "set $n = 1000", "end",
		"end", "disconnect")
	path := filepath.Join(t.TempDir(), "oracle.gdb")
	if err := os.WriteFile(path, []byte(strings.Join(script, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(ctx, gdb, "-nx", "-batch", "-x", path, elf).CombinedOutput()
	if err != nil && !strings.Contains(string(out), "====STOP") {
		t.Fatalf("%s: %v\n%s", gdb, err, out)
	}
	var stops [][]oFrame
	var cur []oFrame
	for _, l := range strings.Split(string(out), "\n") {
		if l == "====STOP" {
			stops = append(stops, cur)
			cur = nil
			continue
		}
		if g := gdbFrameLineRE.FindStringSubmatch(l); g != nil {
			line, _ := strconv.Atoi(g[5])
			f := oFrame{fn: g[2], line: line, vars: map[string][]string{}}
			for _, a := range splitArgs(g[3]) {
				if n, v, ok := strings.Cut(a, "="); ok {
					f.vars[n] = append(f.vars[n], v)
				}
			}
			cur = append(cur, f)
			continue
		}
		if g := gdbLocalRE.FindStringSubmatch(l); g != nil && len(cur) > 0 {
			f := cur[len(cur)-1]
			f.vars[g[1]] = append(f.vars[g[1]], g[2])
		}
	}
	return stops
}

// splitArgs splits gdb's frame arguments "a=1, s={x = 1, y = 2}, c=\"a, b\"" at the
// top-level commas.
func splitArgs(s string) []string {
	var out []string
	depth, quote, start := 0, byte(0), 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '{' || c == '(' || c == '<':
			depth++
		case c == '}' || c == ')' || c == '>':
			depth--
		case c == ',' && depth == 0:
			out = append(out, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	if strings.TrimSpace(s[start:]) != "" {
		out = append(out, strings.TrimSpace(s[start:]))
	}
	return out
}
