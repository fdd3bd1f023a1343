package aura

import (
	"github.com/polydbg/polydbg/engine/profile"
	"github.com/polydbg/polydbg/kite/vm"
)

// MemoryKeys lists the keys of perfReport's memory object, each measured at the end of the
// run over the values reachable from the program's globals and stack (each container,
// string and closure counted once however often it is referenced). docs/protocols/aura.md
// says what each means for Kite values.
var MemoryKeys = []string{
	// aura.md
	"values_total", "values_int", "values_bool", "values_str", "values_style",
	"style_entries", "string_bytes", "callbacks", "verify_cache_entries", "perf_total_ns",
	// ORIGINALS.md
	"env_bindings", "env_keys_bytes", "stdout_bytes",
	// additions
	"values_nil", "values_float", "values_list", "list_items", "values_builtin",
}

// memory renders the VM's live-value statistics with the protocol's key names.
func memory(m vm.MemStats, totalNs int64) map[string]int64 {
	return map[string]int64{
		"values_total":  m.Values,
		"values_int":    m.Ints,
		"values_bool":   m.Bools,
		"values_str":    m.Strings,
		"values_style":  m.Maps,       // Aura's style maps are Kite's maps
		"style_entries": m.MapEntries, // entries across all live maps
		"string_bytes":  m.StringBytes,
		"callbacks":     m.Closures, // live function values (closures and named functions)
		// Aura caches verifier results per callback; Kite checks a program once, when it
		// compiles, and keeps no cache at run time: there is nothing to count.
		"verify_cache_entries": 0,
		"perf_total_ns":        totalNs,
		"env_bindings":         m.Globals,
		"env_keys_bytes":       m.GlobalBytes,
		"stdout_bytes":         m.StdoutBytes,
		"values_nil":           m.Nils,
		"values_float":         m.Floats,
		"values_list":          m.Lists,
		"list_items":           m.ListItems,
		"values_builtin":       m.Builtins,
	}
}

// buildPerfReport turns the engine's profile and the VM's memory report into a perfReport.
func buildPerfReport(r profile.Report, m vm.MemStats) PerfReport {
	tl := make([]TimelineEntry, len(r.Timeline))
	for i, e := range r.Timeline {
		tl[i] = TimelineEntry{Line: e.Line, Col: e.Col, Kind: e.Kind, DurNs: e.DurNs}
	}
	return PerfReport{
		Timeline:        tl,
		FlameFolded:     r.FlameFolded,
		Memory:          memory(m, r.TotalNs),
		TimelineCap:     r.TimelineCap,
		TimelineDropped: r.TimelineDropped,
		TotalNs:         r.TotalNs,
	}
}
