package web

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/engine"
)

// TestDeviceTelemetryIsBounded: however many plot lines, points and variables a firmware
// sends, a hub keeps plotSeriesMax lines of at most 2×plotKeep points and mcuVarsMax
// variables, counts what it lost, and a page is sent at most plotKeep points per line.
func TestDeviceTelemetryIsBounded(t *testing.T) {
	h := &hub{wake: make(chan struct{}), mcu: &mcuFeed{series: map[string][]plotPoint{}, vars: map[string]mcuVar{}}}
	for i := range 3000 {
		for s := range plotSeriesMax + 8 {
			h.telemetry(engine.Telemetry{Kind: engine.TelemetryPlot, Name: fmt.Sprint("line", s), Time: float64(i), Value: float64(i)})
		}
	}
	for v := range mcuVarsMax + 10 {
		h.telemetry(engine.Telemetry{Kind: engine.TelemetryVariable, Name: fmt.Sprint("v", v), Text: strings.Repeat("9", 1000)})
	}
	h.telemetry(engine.Telemetry{Kind: engine.TelemetryTasks, Threads: []engine.Thread{{Name: "IDLE", State: "ready"}, {Name: "sensor", State: "running"}}})
	m := h.mcu
	if len(m.order) != plotSeriesMax || len(m.series) != plotSeriesMax || m.lost != 8*3000 {
		t.Fatalf("%d lines kept (%d), %d points lost", len(m.order), len(m.series), m.lost)
	}
	for name, pts := range m.series {
		if len(pts) > 2*plotKeep || pts[len(pts)-1].v != 2999 {
			t.Fatalf("%s keeps %d points, last %v", name, len(pts), pts[len(pts)-1])
		}
	}
	if len(m.vars) != mcuVarsMax || m.current != "sensor" {
		t.Fatalf("%d variables, current task %q", len(m.vars), m.current)
	}
	plots, state, seq, ver := h.mcuSince(0, 0)
	var got struct{ Series map[string][][2]float64 }
	if err := json.Unmarshal(plots, &got); err != nil {
		t.Fatal(err)
	}
	for name, pts := range got.Series {
		if len(pts) != plotKeep || pts[len(pts)-1][1] != 2999 {
			t.Fatalf("a new page gets %d points of %s", len(pts), name)
		}
	}
	if len(state) > 64*300 || !strings.Contains(string(state), `"current":"sensor"`) {
		t.Fatalf("device state of %d bytes: %.200s", len(state), state)
	}
	// Up to date: nothing more is sent until something changes.
	if p, s, _, _ := h.mcuSince(seq, ver); p != nil || s != nil {
		t.Fatalf("sent again: %s %s", p, s)
	}
	h.telemetry(engine.Telemetry{Kind: engine.TelemetryPlot, Name: "line0", Time: 1, Value: 42})
	if p, _, _, _ := h.mcuSince(seq, ver); string(p) != `{"lost":24000,"order":[`+order(m.order)+`],"series":{"line0":[[1,42]]}}` {
		t.Fatalf("the next point: %s", p)
	}
}

func order(names []string) string {
	b, _ := json.Marshal(names)
	return strings.Trim(string(b), "[]")
}
