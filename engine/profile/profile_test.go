package profile

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// fakeClock advances by a fixed step at every reading.
type fakeClock struct {
	t    time.Time
	step time.Duration
}

func (c *fakeClock) now() time.Time { c.t = c.t.Add(c.step); return c.t }

func TestProfileNumbersAddUp(t *testing.T) {
	clk := &fakeClock{t: time.Unix(0, 0), step: 100 * time.Nanosecond}
	p := &Profiler{Now: clk.now, TimelineCap: 3}
	// main: stmt A (line 1), which calls f: stmt B (line 5) and C (line 6); then D (line 2).
	p.Statement(Site{1, 1, "ExprStmt"}, 1, "main")
	p.Statement(Site{5, 5, "Let"}, 2, "main;f")
	p.Statement(Site{6, 5, "Return"}, 2, "main;f")
	p.Statement(Site{2, 1, "Assign"}, 1, "main")
	p.Finish()
	r := p.Report()
	if r.TotalNs != 400 {
		t.Fatalf("total %d", r.TotalNs)
	}
	if len(r.Timeline) != 3 || r.TimelineDropped != 1 || r.TimelineCap != 3 {
		t.Fatalf("timeline %d kept, %d dropped", len(r.Timeline), r.TimelineDropped)
	}
	var folded int64
	for _, line := range strings.Split(strings.TrimSpace(r.FlameFolded), "\n") {
		var n int64
		i := strings.LastIndexByte(line, ' ')
		for _, c := range line[i+1:] {
			n = n*10 + int64(c-'0')
		}
		folded += n
	}
	if folded != r.TotalNs {
		t.Fatalf("folded stacks add up to %d, total %d:\n%s", folded, r.TotalNs, r.FlameFolded)
	}
	if !strings.Contains(r.FlameFolded, "main;f;Let@5:5 100\n") {
		t.Fatalf("folded:\n%s", r.FlameFolded)
	}
	var self int64
	for _, s := range r.Sites {
		self += s.SelfNs
		if s.Line == 1 && s.TotalNs != 300 { // A runs until D, the next statement at its depth
			t.Fatalf("site 1 total %d", s.TotalNs)
		}
	}
	if self != r.TotalNs {
		t.Fatalf("self times add up to %d", self)
	}
	var svg bytes.Buffer
	if err := WriteFlameSVG(&svg, r.FlameFolded, "t"); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(svg.String(), "<svg") || !strings.Contains(svg.String(), "<title>f (200 ns, 50.00%)</title>") {
		t.Fatalf("svg lacks frame f:\n%s", svg.String())
	}
}

func TestProfilePauseIsNotCharged(t *testing.T) {
	clk := &fakeClock{t: time.Unix(0, 0), step: 100 * time.Nanosecond}
	p := &Profiler{Now: clk.now}
	p.Statement(Site{1, 1, "Let"}, 1, "main")
	p.Pause()
	clk.t = clk.t.Add(time.Second) // stopped at a breakpoint for a second
	p.Resume()
	p.Statement(Site{2, 1, "Let"}, 1, "main")
	p.Finish()
	r := p.Report()
	if r.TotalNs > 1000 || r.Timeline[0].DurNs > 1000 {
		t.Fatalf("a pause was charged: total %d, first statement %d", r.TotalNs, r.Timeline[0].DurNs)
	}
}

// The real clock, read as offsets from its first reading, keeps the wall time and the
// time that passes.
func TestClockReadsFromItsBase(t *testing.T) {
	p := &Profiler{}
	before := time.Now()
	first := p.now()
	time.Sleep(5 * time.Millisecond)
	later := p.now()
	if d := later.Sub(first); d < 5*time.Millisecond || d > time.Second {
		t.Errorf("%v passed between readings 5 ms apart", d)
	}
	if w := first.Sub(before); w < 0 || w > time.Second {
		t.Errorf("the first reading is %v from time.Now", w)
	}
	if later.Round(0).Before(first.Round(0)) { // the wall clock too
		t.Error("the wall clock went back")
	}
}
