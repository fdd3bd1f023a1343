package profile

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"
)

// DefaultTimelineCap bounds the timeline of a profile: the first this many statements
// are kept, later ones only counted (Report.TimelineDropped).
const DefaultTimelineCap = 10_000

// Site is a statement in the source: where it is and its kind ("Assign", "If", ...).
type Site struct {
	Line, Col int
	Kind      string
}

// TimelineEntry is one executed statement and how long it ran before the next one began.
type TimelineEntry struct {
	Line  int    `json:"line"`
	Col   int    `json:"col"`
	Kind  string `json:"kind"`
	DurNs int64  `json:"dur_ns"`
}

// SiteStats is what a profile knows about one statement site.
type SiteStats struct {
	Site
	Count   int64 // executions
	SelfNs  int64 // time until the next statement began, summed
	TotalNs int64 // time until the next statement at the same or a shallower depth, summed
}

// Profiler records statement-level time. A target calls Statement at every statement it
// executes; time between two calls is the first statement's self time. It is used from the
// target's goroutine only.
type Profiler struct {
	TimelineCap int              // 0 means DefaultTimelineCap
	Now         func() time.Time // for tests; nil means time.Now

	started  bool
	start    time.Time
	last     time.Time
	prev     *siteAcc
	sites    map[Site]*siteAcc
	folded   map[string]*foldAcc // by folded key: "main;fib;Return@3:5"
	timeline []TimelineEntry
	dropped  int64
	open     []openStmt
	end      time.Time
	finished bool
	pausedAt time.Time // set while the program is stopped in the debugger
	base     time.Time // the first reading of the clock: later ones are offsets from it
}

// Pause stops the clock while the program is stopped in the debugger, so that time spent
// at a breakpoint is not charged to the statement there.
func (p *Profiler) Pause() {
	if p.started && !p.finished && p.pausedAt.IsZero() {
		p.pausedAt = p.now()
	}
}

// Resume restarts the clock: every open interval is moved forward by the pause.
func (p *Profiler) Resume() {
	if p.pausedAt.IsZero() {
		return
	}
	d := p.now().Sub(p.pausedAt)
	p.pausedAt = time.Time{}
	p.start = p.start.Add(d)
	p.last = p.last.Add(d)
	for i := range p.open {
		p.open[i].start = p.open[i].start.Add(d)
	}
}

type siteAcc struct {
	SiteStats
	stack string   // the stack it ran in last
	fold  *foldAcc // of that stack and this site
}

// foldAcc is one folded stack's time and statement count.
type foldAcc struct{ ns, n int64 }

type openStmt struct {
	acc   *siteAcc
	depth int
	start time.Time
}

// now reads the clock. After the first time.Now it reads only the monotonic clock (time.Since
// its base): time.Now reads the wall clock too, and a stepping program reads it three
// times a step.
func (p *Profiler) now() time.Time {
	if p.Now != nil {
		return p.Now()
	}
	if p.base.IsZero() {
		p.base = time.Now()
		return p.base
	}
	return p.base.Add(time.Since(p.base))
}

// Statement records that a statement at site begins, at call depth depth (1 for the top
// level), with stack naming the frames outermost first joined by ";" (e.g. "main;fib").
func (p *Profiler) Statement(site Site, depth int, stack string) {
	now := p.now()
	if !p.started {
		p.started, p.start = true, now
		p.sites, p.folded = map[Site]*siteAcc{}, map[string]*foldAcc{}
	}
	p.closeSelf(now)
	for len(p.open) > 0 && p.open[len(p.open)-1].depth >= depth {
		o := p.open[len(p.open)-1]
		o.acc.TotalNs += now.Sub(o.start).Nanoseconds()
		p.open = p.open[:len(p.open)-1]
	}
	acc := p.sites[site]
	if acc == nil {
		acc = &siteAcc{SiteStats: SiteStats{Site: site}}
		p.sites[site] = acc
	}
	acc.Count++
	if acc.fold == nil || acc.stack != stack { // the key is built when the stack changes
		key := stack + ";" + site.Kind + "@" + strconv.Itoa(site.Line) + ":" + strconv.Itoa(site.Col)
		if acc.fold = p.folded[key]; acc.fold == nil {
			acc.fold = &foldAcc{}
			p.folded[key] = acc.fold
		}
		acc.stack = stack
	}
	p.open = append(p.open, openStmt{acc: acc, depth: depth, start: now})
	p.prev, p.last = acc, now
}

// closeSelf gives the time since the previous statement began to that statement.
func (p *Profiler) closeSelf(now time.Time) {
	if p.prev == nil {
		return
	}
	d := now.Sub(p.last).Nanoseconds()
	p.prev.SelfNs += d
	p.prev.fold.ns += d
	p.prev.fold.n++
	cap := p.TimelineCap
	if cap <= 0 {
		cap = DefaultTimelineCap
	}
	if len(p.timeline) < cap {
		p.timeline = append(p.timeline, TimelineEntry{Line: p.prev.Line, Col: p.prev.Col, Kind: p.prev.Kind, DurNs: d})
	} else {
		p.dropped++
	}
	p.prev = nil
}

// Finish ends the profile (the program ended); later statements are ignored.
func (p *Profiler) Finish() {
	if p.finished {
		return
	}
	p.finished = true
	now := p.now()
	if !p.started {
		p.start = now
	}
	p.closeSelf(now)
	for _, o := range p.open {
		o.acc.TotalNs += now.Sub(o.start).Nanoseconds()
	}
	p.open = nil
	p.end = now
}

// Report is a finished profile.
type Report struct {
	Timeline        []TimelineEntry
	TimelineCap     int
	TimelineDropped int64
	FlameFolded     string // Brendan Gregg's folded stacks: "main;fib;Return@3:5 1200" per line
	Sites           []SiteStats
	Stacks          []StackStats // the folded stacks with their statement counts, in FlameFolded's order
	TotalNs         int64        // from the first statement to Finish
}

// Report returns the profile: call Finish first, or take it while the program is paused
// (from the program's goroutine) for the profile so far.
func (p *Profiler) Report() Report {
	r := Report{Timeline: p.timeline, TimelineCap: p.TimelineCap, TimelineDropped: p.dropped}
	if r.TimelineCap <= 0 {
		r.TimelineCap = DefaultTimelineCap
	}
	if r.Timeline == nil {
		r.Timeline = []TimelineEntry{}
	}
	if p.started {
		end := p.end
		if !p.finished { // a report taken while the program is paused: up to the last statement
			end = p.last
		}
		r.TotalNs = end.Sub(p.start).Nanoseconds()
	}
	keys := make([]string, 0, len(p.folded))
	for k := range p.folded {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		f := p.folded[k]
		fmt.Fprintf(&b, "%s %d\n", k, f.ns)
		r.Stacks = append(r.Stacks, StackStats{Key: k, Count: f.n, Ns: f.ns})
	}
	r.FlameFolded = b.String()
	for _, a := range p.sites {
		r.Sites = append(r.Sites, a.SiteStats)
	}
	sort.Slice(r.Sites, func(i, j int) bool {
		if r.Sites[i].Line != r.Sites[j].Line {
			return r.Sites[i].Line < r.Sites[j].Line
		}
		return r.Sites[i].Col < r.Sites[j].Col
	})
	return r
}
