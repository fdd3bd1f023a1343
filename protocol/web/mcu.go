package web

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"time"

	"github.com/polydbg/polydbg/engine"
)

// Bounds of a firmware session's device telemetry in a hub, whatever it sends.
const (
	plotSeriesMax = 32              // plot lines kept; later names are counted, not kept
	plotKeep      = 600             // points kept per line
	mcuVarsMax    = 64              // sampled variables shown
	tasksRefresh  = 2 * time.Second // the task list is read again (a brief halt) while running
)

// plotPoint is one value of a plot line; Seq orders all points of a hub, so that a page is
// sent only those it has not seen.
type plotPoint struct {
	seq uint64
	t   float64
	v   float64
}

// mcuVar is a sampled variable's latest value, as the device service formats it.
type mcuVar struct {
	Name string `json:"name"`
	Text string `json:"value"`
	Type string `json:"type,omitempty"`
	Addr uint64 `json:"addr,omitempty"`
}

type mcuTask struct {
	Name       string `json:"name"`
	Kind       string `json:"kind"` // "freertos", or "thread" (a native program's threads)
	State      string `json:"state"`
	Priority   uint32 `json:"priority"`
	StackUsage uint32 `json:"stackUsage"`
	StackSize  uint32 `json:"stackSize"`
}

// mcuFeed is what a hub keeps of a device service's telemetry (guarded by the hub's mu).
type mcuFeed struct {
	series  map[string][]plotPoint
	order   []string // series names in the order they came
	lost    int64    // points of series beyond plotSeriesMax
	seq     uint64
	vars    map[string]mcuVar
	tasks   []mcuTask
	current string // the task that runs, from the last task switch
	ver     uint64 // vars, tasks or current changed
}

// watchMCU starts taking the device service's telemetry (RTT data as output, plot lines,
// samples, tasks). The service then drains RTT in brief halts while the core runs, as it
// does for any front end that listens.
func (h *hub) watchMCU() {
	h.mcu = &mcuFeed{series: map[string][]plotPoint{}, vars: map[string]mcuVar{}}
	stop := h.d.MCU.Watch(h.telemetry)
	go func() {
		defer stop()
		tick := time.NewTicker(tasksRefresh)
		defer tick.Stop()
		for first := true; ; first = false {
			if first || h.d.State() == engine.Running {
				h.refreshTasks()
			}
			select {
			case <-h.ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
}

// refreshTasks reads the task list (in a brief halt while the core runs).
func (h *hub) refreshTasks() {
	ctx, cancel := context.WithTimeout(h.ctx, 2*time.Second)
	defer cancel()
	ts, err := h.d.MCU.Threads(ctx)
	if err != nil || len(ts) == 0 {
		return
	}
	h.telemetry(engine.Telemetry{Kind: engine.TelemetryTasks, Threads: ts})
}

// telemetry takes one report of the device service; it runs on the service's goroutine
// and never blocks.
func (h *hub) telemetry(e engine.Telemetry) {
	if e.Kind == engine.TelemetryRTT {
		if e.Channel == 0 && len(e.Data) > 0 {
			h.appendOutput(string(e.Data))
		}
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	m := h.mcu
	switch e.Kind {
	case engine.TelemetryPlot:
		pts, ok := m.series[e.Name]
		if !ok && len(m.order) >= plotSeriesMax {
			m.lost++
			return
		}
		if !ok {
			m.order = append(m.order, e.Name)
		}
		m.seq++
		pts = append(pts, plotPoint{seq: m.seq, t: e.Time, v: e.Value})
		if len(pts) > 2*plotKeep { // trimmed in bulk, as the output ring
			pts = append(pts[:0], pts[len(pts)-plotKeep:]...)
		}
		m.series[e.Name] = pts
	case engine.TelemetryVariable:
		if _, ok := m.vars[e.Name]; !ok && len(m.vars) >= mcuVarsMax {
			return
		}
		m.vars[e.Name] = mcuVar{Name: e.Name, Text: engine.ClipValue(e.Text, 256), Type: e.Type, Addr: e.Addr}
		m.ver++
	case engine.TelemetryTaskSwitch:
		if m.current == e.To {
			return
		}
		m.current = e.To
		m.ver++
	case engine.TelemetryTasks:
		m.tasks = m.tasks[:0]
		for _, t := range e.Threads {
			m.tasks = append(m.tasks, mcuTask{Name: t.Name, Kind: t.Kind, State: t.State, Priority: t.Priority, StackUsage: t.StackUsage, StackSize: t.StackSize})
			if t.State == "running" {
				m.current = t.Name
			}
		}
		m.ver++
	default:
		return
	}
	h.changed()
}

// mcuSince returns, for a page that has seen points up to seq and the device state at
// version ver, the JSON of the new plot points (nil if none) and of the device state (nil if
// unchanged), with the page's new cursors; call with h.mu held.
func (h *hub) mcuSince(seq, ver uint64) (plots, state []byte, nseq, nver uint64) {
	m := h.mcu
	if m == nil {
		return nil, nil, seq, ver
	}
	if m.seq > seq {
		out := map[string][][2]float64{}
		for _, name := range m.order {
			pts := m.series[name]
			i := sort.Search(len(pts), func(i int) bool { return pts[i].seq > seq })
			i = max(i, len(pts)-plotKeep)
			for _, p := range pts[i:] {
				out[name] = append(out[name], [2]float64{p.t, p.v})
			}
		}
		plots, _ = json.Marshal(map[string]any{"series": out, "order": m.order, "lost": m.lost})
	}
	if m.ver != ver {
		vars := make([]mcuVar, 0, len(m.vars))
		for _, v := range m.vars {
			vars = append(vars, v)
		}
		sort.Slice(vars, func(i, j int) bool { return vars[i].Name < vars[j].Name })
		tasks := m.tasks
		if tasks == nil {
			tasks = []mcuTask{}
		}
		state, _ = json.Marshal(map[string]any{"vars": vars, "tasks": tasks, "current": m.current})
	}
	return plots, state, m.seq, m.ver
}

// sample starts (or, with period 0, stops) sampling a global variable of the firmware as a
// plot line and a value that changes; it needs the session's token.
func (s *Server) sample(w http.ResponseWriter, r *http.Request) {
	h := s.hubOr404(w, r)
	if h == nil || !s.authorized(w, r) {
		return
	}
	var req struct {
		Name     string
		PeriodMs int
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&req); err != nil || req.Name == "" || h.d.MCU == nil {
		http.Error(w, "bad request: want {name, periodMs} for a firmware session", http.StatusBadRequest)
		return
	}
	if err := h.d.MCU.Sample(req.Name, time.Duration(req.PeriodMs)*time.Millisecond); err != nil {
		http.Error(w, err.Error(), http.StatusConflict)
		return
	}
	writeJSON(w, map[string]bool{"ok": true})
}
