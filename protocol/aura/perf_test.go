package aura

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/engine/profile"
)

// foldedTotal sums the counts of folded-stack text and checks its form.
func foldedTotal(t *testing.T, folded string) (sum int64, stacks []string) {
	t.Helper()
	for _, l := range strings.Split(strings.TrimSuffix(folded, "\n"), "\n") {
		i := strings.LastIndexByte(l, ' ')
		if i < 0 {
			t.Fatalf("folded line %q has no count", l)
		}
		n, err := strconv.ParseInt(l[i+1:], 10, 64)
		if err != nil || n < 0 {
			t.Fatalf("folded line %q: bad count", l)
		}
		sum += n
		stacks = append(stacks, l[:i])
	}
	return sum, stacks
}

func perfOf(t *testing.T, file string) PerfReport {
	t.Helper()
	a := start(t, true, nil, file)
	var ev PerfReportEvent
	a.expectInto("perfReport", &ev)
	if code := a.exit(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	return ev.Report
}

// TestPerfReportAddsUp: every statement executed is in the timeline, and the timeline,
// the folded stacks and perf_total_ns all account for the same time.
func TestPerfReportAddsUp(t *testing.T) {
	r := perfOf(t, "testdata/mem.kite")
	var kinds []string
	var sum int64
	for i, e := range r.Timeline {
		if e.Line != i+1 || e.Col != 1 || e.DurNs < 0 {
			t.Fatalf("timeline entry %d: %+v", i, e)
		}
		kinds = append(kinds, e.Kind)
		sum += e.DurNs
	}
	want := []string{"Let", "Let", "Let", "Let", "Let", "Let", "Let", "ExprStmt"}
	if !slices.Equal(kinds, want) {
		t.Fatalf("timeline kinds %v, want %v", kinds, want)
	}
	folded, stacks := foldedTotal(t, r.FlameFolded)
	if !slices.Contains(stacks, "main;Let@4:1") || !slices.Contains(stacks, "main;ExprStmt@8:1") || len(stacks) != 8 {
		t.Fatalf("folded stacks %q", stacks)
	}
	if r.TotalNs <= 0 || sum != r.TotalNs || folded != r.TotalNs || r.Memory["perf_total_ns"] != r.TotalNs {
		t.Fatalf("timeline %d ns, folded %d ns, total %d ns, perf_total_ns %d: they must agree",
			sum, folded, r.TotalNs, r.Memory["perf_total_ns"])
	}
	if r.TimelineDropped != 0 || r.TimelineCap != profile.DefaultTimelineCap {
		t.Fatalf("cap %d dropped %d", r.TimelineCap, r.TimelineDropped)
	}
}

// TestPerfMemory checks every memory key against values counted by hand for mem.kite:
//
//	let a = 7                      int
//	let flag = true                bool
//	let s = "hello"                string (5 bytes)
//	let m = {"x": 1, "y": 2}       map, 2 entries: strings "x" "y", ints 1 2
//	let xs = [1, 2, 3]             list, 3 items: ints
//	let f = fn(x) { return x + a } closure (a global is not captured)
//	let same = m                   the same map: counted once
//	print("done")                  5 bytes of stdout
func TestPerfMemory(t *testing.T) {
	r := perfOf(t, "testdata/mem.kite")
	want := map[string]int64{
		"values_total":         13, // 6 ints + 1 bool + 3 strings + map + list + closure
		"values_int":           6,
		"values_bool":          1,
		"values_str":           3,
		"values_style":         1,
		"style_entries":        2,
		"string_bytes":         7,
		"callbacks":            1,
		"verify_cache_entries": 0,
		"env_bindings":         7,
		"env_keys_bytes":       int64(len("a" + "flag" + "s" + "m" + "xs" + "f" + "same")),
		"stdout_bytes":         5,
		"values_nil":           0,
		"values_float":         0,
		"values_list":          1,
		"list_items":           3,
		"values_builtin":       0,
	}
	for _, k := range MemoryKeys {
		if _, ok := r.Memory[k]; !ok {
			t.Errorf("memory key %s missing", k)
		}
	}
	if len(r.Memory) != len(MemoryKeys) {
		t.Errorf("memory has %d keys, MemoryKeys lists %d", len(r.Memory), len(MemoryKeys))
	}
	for k, v := range want {
		if r.Memory[k] != v {
			t.Errorf("memory %s = %d, want %d", k, r.Memory[k], v)
		}
	}
	if r.Memory["perf_total_ns"] <= 0 {
		t.Errorf("perf_total_ns %d", r.Memory["perf_total_ns"])
	}
}

// TestPerfTimelineCap: a run longer than the cap keeps the first statements and counts
// the rest; the folded stacks still account for all the time.
func TestPerfTimelineCap(t *testing.T) {
	r := perfOf(t, "testdata/long.kite")
	if len(r.Timeline) != r.TimelineCap || r.TimelineDropped <= 0 {
		t.Fatalf("timeline %d entries, cap %d, dropped %d", len(r.Timeline), r.TimelineCap, r.TimelineDropped)
	}
	// 1 let, 6001 loop tests, 6000 increments, 1 print.
	if n := int64(len(r.Timeline)) + r.TimelineDropped; n != 1+6001+6000+1 {
		t.Fatalf("%d statements recorded", n)
	}
	folded, _ := foldedTotal(t, r.FlameFolded)
	var sum int64
	for _, e := range r.Timeline {
		sum += e.DurNs
	}
	if folded != r.TotalNs || sum > r.TotalNs {
		t.Fatalf("folded %d, timeline %d, total %d", folded, sum, r.TotalNs)
	}
}
