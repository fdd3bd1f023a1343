package profile

import (
	"encoding/json"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/google/pprof/profile"
)

// StackStats is one folded stack of a report: the frames (outermost first) and the statement
// they ended in, how often that statement ran there and the time it took.
type StackStats struct {
	Key   string // "main;fib;Return@3:5", as in FlameFolded
	Count int64
	Ns    int64
}

// Frames splits the key into function names (outermost first) and the leaf statement's
// site.
func (s StackStats) Frames() (funcs []string, leaf Site) {
	parts := strings.Split(s.Key, ";")
	funcs = parts[:len(parts)-1]
	stmt := parts[len(parts)-1]
	at := strings.LastIndexByte(stmt, '@')
	if at < 0 {
		return funcs, Site{Kind: stmt}
	}
	leaf.Kind = stmt[:at]
	line, col, _ := strings.Cut(stmt[at+1:], ":")
	leaf.Line, _ = strconv.Atoi(line)
	leaf.Col, _ = strconv.Atoi(col)
	return funcs, leaf
}

// FuncStats is what a report knows about one function: the time spent in its own statements
// (self), the time while it was on the stack (total, counted once per stack however deep the
// recursion), and how many of its own statements ran.
type FuncStats struct {
	Name           string
	SelfNs         int64
	TotalNs        int64
	SelfStatements int64
}

// Functions sums the report by function, in the order pprof's -top lists them: most self
// time first, then by name, then most total time.
func (r Report) Functions() []FuncStats {
	by := map[string]*FuncStats{}
	get := func(name string) *FuncStats {
		f := by[name]
		if f == nil {
			f = &FuncStats{Name: name}
			by[name] = f
		}
		return f
	}
	for _, s := range r.Stacks {
		funcs, _ := s.Frames()
		if len(funcs) == 0 {
			continue
		}
		leaf := get(funcs[len(funcs)-1])
		leaf.SelfNs += s.Ns
		leaf.SelfStatements += s.Count
		seen := map[string]bool{}
		for _, f := range funcs {
			if !seen[f] {
				seen[f] = true
				get(f).TotalNs += s.Ns
			}
		}
	}
	out := make([]FuncStats, 0, len(by))
	for _, f := range by {
		out = append(out, *f)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.SelfNs != b.SelfNs {
			return a.SelfNs > b.SelfNs
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.TotalNs > b.TotalNs
	})
	return out
}

// WritePprof writes the report as a gzipped profile.proto, the format `go tool pprof` and
// other profilers read: one sample per folded stack with its statement count and time, a
// function per Kite function (in file), the leaf location at its statement's line.
func WritePprof(w io.Writer, r Report, file string) error {
	p := &profile.Profile{
		SampleType:        []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "time", Unit: "nanoseconds"}},
		DefaultSampleType: "time",
		PeriodType:        &profile.ValueType{Type: "time", Unit: "nanoseconds"},
		Period:            1,
		DurationNanos:     r.TotalNs,
	}
	funcs := map[string]*profile.Function{}
	function := func(name string) *profile.Function {
		f := funcs[name]
		if f == nil {
			f = &profile.Function{ID: uint64(len(p.Function) + 1), Name: PprofName(name), SystemName: name, Filename: file}
			funcs[name] = f
			p.Function = append(p.Function, f)
		}
		return f
	}
	type locKey struct {
		fn   string
		line int
	}
	locs := map[locKey]*profile.Location{}
	location := func(fn string, line int) *profile.Location {
		k := locKey{fn, line}
		l := locs[k]
		if l == nil {
			l = &profile.Location{ID: uint64(len(p.Location) + 1), Line: []profile.Line{{Function: function(fn), Line: int64(line)}}}
			locs[k] = l
			p.Location = append(p.Location, l)
		}
		return l
	}
	for _, s := range r.Stacks {
		names, leaf := s.Frames()
		if len(names) == 0 {
			continue
		}
		sample := &profile.Sample{Value: []int64{s.Count, s.Ns}, Label: map[string][]string{"statement": {leaf.Kind}}}
		for i := len(names) - 1; i >= 0; i-- { // leaf first
			line := 0
			if i == len(names)-1 {
				line = leaf.Line
			}
			sample.Location = append(sample.Location, location(names[i], line))
		}
		p.Sample = append(p.Sample, sample)
	}
	if err := p.CheckValid(); err != nil {
		return err
	}
	return p.Write(w)
}

// PprofName is the name a Kite function has in a pprof profile: pprof shortens names by
// dropping what stands in angle brackets (C++ template arguments), which would turn Kite's
// anonymous "<fn>" into "<unknown>", so those become "anonymous.fn".
func PprofName(name string) string {
	if strings.HasPrefix(name, "<") && strings.HasSuffix(name, ">") {
		return "anonymous." + strings.Trim(name, "<>")
	}
	return name
}

// speedscope's file format (https://www.speedscope.app/file-format-schema.json), the part a
// sampled profile needs.
type speedscopeFile struct {
	Schema             string              `json:"$schema"`
	Shared             speedscopeShared    `json:"shared"`
	Profiles           []speedscopeProfile `json:"profiles"`
	Name               string              `json:"name"`
	ActiveProfileIndex int                 `json:"activeProfileIndex"`
	Exporter           string              `json:"exporter"`
}

type speedscopeShared struct {
	Frames []speedscopeFrame `json:"frames"`
}

type speedscopeFrame struct {
	Name string `json:"name"`
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
	Col  int    `json:"col,omitempty"`
}

type speedscopeProfile struct {
	Type       string  `json:"type"`
	Name       string  `json:"name"`
	Unit       string  `json:"unit"`
	StartValue int64   `json:"startValue"`
	EndValue   int64   `json:"endValue"`
	Samples    [][]int `json:"samples"`
	Weights    []int64 `json:"weights"`
}

// WriteSpeedscope writes the report in speedscope's JSON format (which the Firefox Profiler
// imports too): a sampled profile with one weighted sample per folded stack, the statement
// as the innermost frame.
func WriteSpeedscope(w io.Writer, r Report, file string) error {
	out := speedscopeFile{
		Schema:   "https://www.speedscope.app/file-format-schema.json",
		Name:     file,
		Exporter: "polydbg",
	}
	index := map[speedscopeFrame]int{}
	frame := func(f speedscopeFrame) int {
		i, ok := index[f]
		if !ok {
			i = len(out.Shared.Frames)
			index[f] = i
			out.Shared.Frames = append(out.Shared.Frames, f)
		}
		return i
	}
	prof := speedscopeProfile{Type: "sampled", Name: file, Unit: "nanoseconds", EndValue: r.TotalNs, Samples: [][]int{}, Weights: []int64{}}
	for _, s := range r.Stacks {
		names, leaf := s.Frames()
		stack := make([]int, 0, len(names)+1)
		for _, n := range names {
			stack = append(stack, frame(speedscopeFrame{Name: n, File: file}))
		}
		stack = append(stack, frame(speedscopeFrame{Name: leaf.Kind + " line " + strconv.Itoa(leaf.Line), File: file, Line: leaf.Line, Col: leaf.Col}))
		prof.Samples = append(prof.Samples, stack)
		prof.Weights = append(prof.Weights, s.Ns)
	}
	if out.Shared.Frames == nil {
		out.Shared.Frames = []speedscopeFrame{}
	}
	out.Profiles = []speedscopeProfile{prof}
	enc := json.NewEncoder(w)
	return enc.Encode(out)
}
