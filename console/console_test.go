package console

import (
	"bytes"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/kite"
	"github.com/polydbg/polydbg/kite/vm"
)

const examples = "../examples/cartridges"

func TestManifestProblems(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.kite"), []byte("fn frame() {}\n"), 0o644)
	tests := []struct {
		name, json string
		want       []string // one substring per problem, in order
	}{
		{"ok", `{"magic":"PMTU","cartridge_version":1,"app_id":1,"title":"A","app_version":"1","app_mode":"System","entrypoint":"main.kite"}`, nil},
		{"not json", `{"magic":`, []string{"not a JSON object"}},
		{"array", `[1]`, []string{"not a JSON object"}},
		{"everything wrong", `{"magic":"XXXX","cartridge_version":2,"app_id":-3,"title":"","app_version":5,"app_mode":"Debug","entrypoint":"nope.kite"}`,
			[]string{`magic must be "PMTU", got "XXXX"`, "cartridge_version 2 is not supported", "app_id must be a positive integer, got -3",
				"title is empty", "app_version must be a string, got 5", `app_mode must be "Game" or "System", got "Debug"`, `entrypoint "nope.kite" does not exist`}},
		{"missing", `{}`, []string{"magic is missing", "cartridge_version is missing", "app_id is missing", "title is missing",
			"app_version is missing", "app_mode is missing", "entrypoint is missing"}},
		{"wrong types", `{"magic":"PMTU","cartridge_version":"1","app_id":1.5,"title":"A","app_version":"1","app_mode":"Game","entrypoint":"../x.kite"}`,
			[]string{"cartridge_version must be an integer", "app_id must be an integer", "must be a path inside the cartridge"}},
		{"limits", `{"magic":"PMTU","cartridge_version":1,"app_id":1,"title":"A","app_version":"1","app_mode":"Game","entrypoint":"main.kite",
			"limits":{"cycles_per_frame":0,"heap_values":"many","logs_per_frame":3,"speed":1}}`,
			[]string{"limits.cycles_per_frame must be a positive integer, got 0", "limits.heap_values must be an integer", "limits.speed is not a known limit"}},
		{"budget too big", `{"magic":"PMTU","cartridge_version":1,"app_id":1,"title":"A","app_version":"1","app_mode":"Game","entrypoint":"main.kite","limits":{"cycles_per_frame":1000000000}}`,
			[]string{"limits.cycles_per_frame must be at most"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := ParseManifest([]byte(tc.json), dir)
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				if m.Limits != DefaultLimits || m.AppMode != "System" {
					t.Fatalf("manifest %+v", m)
				}
				return
			}
			var me *ManifestError
			if !errors.As(err, &me) {
				t.Fatalf("error %v, want a ManifestError", err)
			}
			if len(me.Problems) != len(tc.want) {
				t.Fatalf("problems:\n%s\nwant %d", err, len(tc.want))
			}
			for i, w := range tc.want {
				if !strings.Contains(me.Problems[i], w) {
					t.Errorf("problem %d = %q, want it to contain %q", i, me.Problems[i], w)
				}
			}
		})
	}
	m, err := ParseManifest([]byte(`{"magic":"PMTU","cartridge_version":1,"app_id":1,"title":"A","app_version":"1","app_mode":"Game","entrypoint":"main.kite","limits":{"logs_per_frame":3}}`), dir)
	if err != nil || m.Limits.LogsPerFrame != 3 || m.Limits.CyclesPerFrame != DefaultLimits.CyclesPerFrame {
		t.Fatalf("limits %+v, %v", m, err)
	}
}

func TestLoadErrors(t *testing.T) {
	if _, err := Load(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no manifest.json") {
		t.Fatalf("err %v", err)
	}
	dir := cart(t, "let x = 1\n", "")
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "defines no fn frame()") {
		t.Fatalf("err %v", err)
	}
	dir = cart(t, "fn frame() {\n  let = 2\n  }}\n", "")
	if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "main.kite:2:") {
		t.Fatalf("err %v", err)
	}
	// Syscalls exist for cartridges only.
	prog, err := kite.Compile("plain.kite", []byte("pset(1, 1, 1)\n"), nil)
	if err == nil {
		v, _ := vm.New(prog, vm.Options{})
		err = v.Run()
	}
	if err == nil || !strings.Contains(err.Error(), "undefined variable pset") {
		t.Fatalf("a plain program called a syscall: %v", err)
	}
}

// The screenshot of colorsquare has the square where the program drew it: after N
// frames, the last frame drew it at (10+N-1, 20+N-1) in red (colour 8) on dark blue.
func TestColorSquareScreenshot(t *testing.T) {
	const n = 5
	r := runCart(t, filepath.Join(examples, "colorsquare"), Options{Frames: n})
	if r.kind != engine.EventExited || r.code != 0 {
		t.Fatalf("ended %s %d: %s", r.kind, r.code, r.output)
	}
	img, err := png.Decode(bytes.NewReader(r.con.Screen().PNG()))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != Width || b.Dy() != Height {
		t.Fatalf("size %v", b)
	}
	x0, y0 := 10+n-1, 20+n-1
	check := func(x, y, want int) {
		t.Helper()
		if got := img.At(x, y); got != Palette[want] {
			t.Errorf("pixel (%d,%d) = %v, want colour %d %v", x, y, got, want, Palette[want])
		}
	}
	for _, p := range [][2]int{{x0, y0}, {x0 + 15, y0}, {x0, y0 + 15}, {x0 + 15, y0 + 15}, {x0 + 8, y0 + 8}} {
		check(p[0], p[1], 8)
	}
	for _, p := range [][2]int{{x0 - 1, y0}, {x0 + 16, y0}, {x0, y0 - 1}, {x0, y0 + 16}, {100, 100}} {
		check(p[0], p[1], 1)
	}
	check(2, 2, 1) // the C of COLORSQUARE: its top row is ".##"
	check(3, 2, 7)
	check(4, 2, 7)
	logs := eventsOf(r.events, EventLog)
	if len(logs) == 0 || logs[0].Msg != "ColorSquare ready" || logs[0].Level != "info" || logs[0].Source != "cartridge" {
		t.Fatalf("logs %+v", logs)
	}
}

// The budget-breaking cartridge produces a cert event for every rule, at most once per
// rule per frame, with the frame that broke it.
func TestOverBudgetCert(t *testing.T) {
	r := runCart(t, filepath.Join(examples, "overbudget"), Options{Frames: 8})
	if r.kind != engine.EventExited || r.code != 0 {
		t.Fatalf("ended %s %d: %s", r.kind, r.code, r.output)
	}
	seen := map[[2]any]bool{}
	rules := map[string][]Event{}
	for _, e := range eventsOf(r.events, EventCert) {
		k := [2]any{e.Rule, e.FrameIndex}
		if seen[k] {
			t.Fatalf("rule %s reported twice in frame %d", e.Rule, e.FrameIndex)
		}
		seen[k] = true
		if e.Used <= e.Limit && e.Rule != RuleCycles {
			t.Fatalf("cert %+v: used within the limit", e)
		}
		rules[e.Rule] = append(rules[e.Rule], e)
	}
	lim := r.con.Limits()
	frames := func(es []Event) (out []int64) {
		for _, e := range es {
			out = append(out, e.FrameIndex)
		}
		return out
	}
	// Frame 3 burns too many cycles: it is cut, frame() finishes in frame 4, which calls
	// no syscall; frame 7 is cut again when the run ends.
	called := []int64{0, 1, 2, 3, 5, 6, 7}
	// 300 pset, cls, frame_index, rnd and three log calls.
	if s := rules[RuleSyscalls]; !slices.Equal(frames(s), called) || s[0].Used != 306 || s[0].Limit != lim.SyscallsPerFrame {
		t.Fatalf("syscall certs %+v", s)
	}
	if s := rules[RuleLogs]; !slices.Equal(frames(s), called) || s[0].Used != 3 || s[0].Limit != 2 {
		t.Fatalf("log certs %+v", s)
	}
	// 100 ints more at every call: beyond 500 from frame 5 on.
	if s := rules[RuleHeap]; !slices.Equal(frames(s), []int64{5, 6, 7}) || s[0].Limit != 500 || s[0].Used <= 500 {
		t.Fatalf("heap certs %+v", s)
	}
	if c := rules[RuleCycles]; !slices.Equal(frames(c), []int64{3, 7}) || c[0].Used < 20000 || c[0].Limit != 20000 {
		t.Fatalf("cycle certs %+v", c)
	}
}

// A frame that runs out of cycles is cut at a safe point and goes on in the next frame:
// frame() runs fewer times than frames pass.
func TestBudgetCutsFrame(t *testing.T) {
	src := `let calls = 0
fn frame() {
    calls += 1
    log("call ${calls} frame ${frame_index()}")
    let s = 0
    for i in range(0, 1000) { s += i }
    log("end ${calls} frame ${frame_index()}")
}
`
	r := runCart(t, cart(t, src, `{"cycles_per_frame": 5000}`), Options{Frames: 6})
	var got []string
	for _, e := range eventsOf(r.events, EventLog) {
		got = append(got, e.Msg)
	}
	// One frame() call needs ~8000 cycles: it spans two frames.
	want := "call 1 frame 0|end 1 frame 1|call 2 frame 2|end 2 frame 3|call 3 frame 4|end 3 frame 5"
	if strings.Join(got, "|") != want {
		t.Fatalf("logs %q, want %q", strings.Join(got, "|"), want)
	}
	if n := len(eventsOf(r.events, EventCert)); n != 3 {
		t.Fatalf("%d cert events, want 3 (frames 0, 2, 4)", n)
	}
}

// Telemetry numbers are the VM's own counters: a plain VM that runs the same top level,
// init() and frame() calls has counted the same steps and cycles.
func TestTelemetryMatchesVM(t *testing.T) {
	src := `let t = 0
fn init() { t = 5 }
fn frame() {
    for i in range(0, 10 + frame_index()) { t += i * 2 }
    pset(t % 128, 3, 7)
}
`
	dir := cart(t, src, "")
	r := runCart(t, dir, Options{Frames: 9, Telemetry: 3})
	tel := eventsOf(r.events, EventTelemetry)
	if len(tel) != 3 {
		t.Fatalf("telemetry %+v", tel)
	}
	// The same program on a bare VM, with frame_index and pset as plain host functions.
	cart, _ := Load(dir)
	frame := int64(0)
	host := []*vm.Builtin{}
	for _, n := range Syscalls {
		host = append(host, &vm.Builtin{Name: n, Fn: func(*vm.VM, []vm.Value) (vm.Value, error) { return vm.Int(frame), nil }})
	}
	v, err := vm.New(cart.Program, vm.Options{Host: host})
	if err != nil {
		t.Fatal(err)
	}
	if err := v.Run(); err != nil {
		t.Fatal(err)
	}
	fns := map[string]vm.Value{}
	for _, g := range v.Globals() {
		fns[g.Name] = g.Value
	}
	v.Call(fns["init"])
	for i, te := range tel {
		for ; frame <= te.FrameIndex; frame++ {
			if _, err := v.Call(fns["frame"]); err != nil {
				t.Fatal(err)
			}
		}
		if te.FrameIndex != int64(3*i+2) || te.Steps != v.Steps() || te.Cycles != v.Cycles() || te.Syscalls != 2*(te.FrameIndex+1) {
			t.Fatalf("telemetry %d: %+v; VM steps %d cycles %d", i, te, v.Steps(), v.Cycles())
		}
	}
}

// rnd is deterministic for a seed, and differs between seeds.
func TestRndSeeded(t *testing.T) {
	dir := cart(t, "fn frame() {\n    log(\"${rnd(1000)} ${rnd(1.0) < 1.0}\")\n}\n", "")
	logs := func(seed uint64) string {
		var s []string
		for _, e := range eventsOf(runCart(t, dir, Options{Frames: 4, Seed: seed}).events, EventLog) {
			s = append(s, e.Msg)
		}
		return strings.Join(s, ",")
	}
	a, b, c := logs(1), logs(1), logs(2)
	if a != b || a == c || !strings.Contains(a, "true") {
		t.Fatalf("seed 1: %s / %s, seed 2: %s", a, b, c)
	}
}

func TestSyscallErrors(t *testing.T) {
	for _, tc := range []struct{ call, want string }{
		{`pset(1, 2)`, "pset expects 3, got 2"},
		{`pset("a", 2, 3)`, "pset: argument 1 must be int or float, not string"},
		{`btn(8)`, "there is no button 8"},
		{`log("loud", "x")`, "log: the level must be"},
		{`rnd(0)`, "rnd: the bound must be a positive number"},
	} {
		r := runCart(t, cart(t, "fn frame() {\n    "+tc.call+"\n}\n", ""), Options{Frames: 1})
		if r.code != 1 || !strings.Contains(r.output, tc.want) || !strings.Contains(r.output, "main.kite:2:") {
			t.Errorf("%s: exit %d, output %q", tc.call, r.code, r.output)
		}
	}
}

func TestDrawing(t *testing.T) {
	src := `fn frame() {
    cls(0)
    rect(0, 0, 9, 9, 3)
    line(20, 20, 29, 29, 4)
    line(-500, 5000, 5000, -500, 5)
    pset(50, 50, 18)
    log("${pget(50, 50)} ${pget(-1, 0)} ${text("Hi!", 60, 60, 6)}")
}
`
	r := runCart(t, cart(t, src, ""), Options{Frames: 1})
	if logs := eventsOf(r.events, EventLog); len(logs) != 1 || logs[0].Msg != "2 0 72" {
		t.Fatalf("logs %+v output %s", logs, r.output)
	}
	fb := r.con.Screen()
	for _, p := range [][3]int{{0, 0, 3}, {9, 5, 3}, {5, 9, 3}, {5, 5, 0}, {20, 20, 4}, {25, 25, 4}, {29, 29, 4}, {26, 25, 0}, {50, 50, 2}, {60, 60, 6}, {61, 60, 0}, {62, 62, 6}} {
		if got := fb.At(p[0], p[1]); int(got) != p[2] {
			t.Errorf("(%d,%d) = %d, want %d", p[0], p[1], got, p[2])
		}
	}
}

// A compiled program written by Build runs like its source.
func TestBuildRoundTrip(t *testing.T) {
	src := filepath.Join(examples, "colorsquare")
	dir := t.TempDir()
	for _, f := range []string{"manifest.json", "main.kite"} {
		b, _ := os.ReadFile(filepath.Join(src, f))
		os.WriteFile(filepath.Join(dir, f), b, 0o644)
	}
	out, err := Build(dir, "")
	if err != nil || filepath.Base(out) != "main.kbc" {
		t.Fatal(out, err)
	}
	m, _ := os.ReadFile(filepath.Join(dir, "manifest.json"))
	os.WriteFile(filepath.Join(dir, "manifest.json"), bytes.Replace(m, []byte(`"main.kite"`), []byte(`"main.kbc"`), 1), 0o644)
	a := runCart(t, src, Options{Frames: 130})
	b := runCart(t, dir, Options{Frames: 130})
	if *a.con.Screen() != *b.con.Screen() || a.con.Snapshot() != b.con.Snapshot() {
		t.Fatalf("compiled run differs: %+v vs %+v", a.con.Snapshot(), b.con.Snapshot())
	}
	c, err := Load(dir)
	if err != nil || c.Program.File != filepath.Join(c.Dir, "main.kite") {
		t.Fatalf("file %q, %v", c.Program.File, err)
	}
	// A damaged program file is refused, not run.
	data, _ := os.ReadFile(out)
	for _, cut := range []int{len(bytecodeMagic), len(data) / 2, len(data) - 3} {
		os.WriteFile(out, data[:cut], 0o644)
		if _, err := Load(dir); err == nil || !strings.Contains(err.Error(), "corrupt") {
			t.Fatalf("truncated at %d: %v", cut, err)
		}
	}
}
