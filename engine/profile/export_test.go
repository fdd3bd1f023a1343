package profile

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/google/pprof/profile"
)

// sampleReport is main calling f twice (f recursing once) and an anonymous function.
func sampleReport() Report {
	clk := &fakeClock{t: time.Unix(0, 0), step: 100 * time.Nanosecond}
	p := &Profiler{Now: clk.now}
	p.Statement(Site{1, 1, "ExprStmt"}, 1, "main")
	p.Statement(Site{5, 5, "Let"}, 2, "main;f")
	p.Statement(Site{5, 5, "Let"}, 3, "main;f;f")
	p.Statement(Site{6, 5, "Return"}, 2, "main;f")
	p.Statement(Site{2, 1, "Assign"}, 1, "main")
	p.Statement(Site{9, 3, "Return"}, 2, "main;<fn>")
	p.Finish()
	return p.Report()
}

func TestFunctionsSumSelfAndTotal(t *testing.T) {
	fs := sampleReport().Functions()
	want := []FuncStats{{"f", 300, 300, 3}, {"main", 200, 600, 2}, {"<fn>", 100, 100, 1}}
	if len(fs) != len(want) {
		t.Fatalf("functions %+v", fs)
	}
	for i := range want {
		if fs[i] != want[i] {
			t.Fatalf("function %d: %+v, want %+v", i, fs[i], want[i])
		}
	}
}

func TestPprofRoundTrip(t *testing.T) {
	r := sampleReport()
	var buf bytes.Buffer
	if err := WritePprof(&buf, r, "prog.kite"); err != nil {
		t.Fatal(err)
	}
	p, err := profile.Parse(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if p.DefaultSampleType != "time" || len(p.SampleType) != 2 || p.DurationNanos != 600 {
		t.Fatalf("header %+v", p)
	}
	var count, ns int64
	self := map[string]int64{}
	for _, s := range p.Sample {
		count += s.Value[0]
		ns += s.Value[1]
		leaf := s.Location[0].Line[0]
		self[leaf.Function.Name] += s.Value[1]
		if leaf.Function.Filename != "prog.kite" || leaf.Line == 0 {
			t.Fatalf("leaf %+v", leaf)
		}
	}
	if count != 6 || ns != 600 {
		t.Fatalf("samples add up to %d statements, %d ns", count, ns)
	}
	if self["f"] != 300 || self["main"] != 200 || self["anonymous.fn"] != 100 {
		t.Fatalf("self times %v", self)
	}
}

func TestSpeedscopeShape(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteSpeedscope(&buf, sampleReport(), "prog.kite"); err != nil {
		t.Fatal(err)
	}
	var doc speedscopeFile
	if err := json.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	pr := doc.Profiles[0]
	var sum int64
	for i, s := range pr.Samples {
		sum += pr.Weights[i]
		for _, f := range s {
			if f < 0 || f >= len(doc.Shared.Frames) {
				t.Fatalf("sample %d names frame %d of %d", i, f, len(doc.Shared.Frames))
			}
		}
	}
	if sum != 600 || pr.EndValue != 600 || doc.Shared.Frames[0].Name != "main" {
		t.Fatalf("speedscope %+v", doc)
	}
	// An empty report is still a valid file.
	buf.Reset()
	if err := WriteSpeedscope(&buf, Report{}, "x"); err != nil || !json.Valid(buf.Bytes()) {
		t.Fatalf("empty: %v %s", err, buf.String())
	}
}

func FuzzStackFrames(f *testing.F) {
	for _, s := range []string{"main;fib;Return@3:5", "x", "a;@", ";;", "main;If@:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, key string) {
		funcs, _ := StackStats{Key: key}.Frames()
		if len(funcs) > len(key)+1 {
			t.Fatalf("%d frames from %q", len(funcs), key)
		}
	})
}
