package aura

// ProtocolVersion is the protocol number sent in hello.
const ProtocolVersion = 1

// Capabilities lists what works, in hello: the ten of the document, then polydbg's
// backward-compatible additions.
var Capabilities = []string{
	"devvm.pause",
	"devvm.step",
	"devvm.breakpoints",
	"devvm.watches",
	"native.launch",
	"native.terminate",
	"native.exit",
	"perf.timeline",
	"perf.flame.folded",
	"perf.memory",
	// Additions.
	"devvm.stepIn",
	"devvm.stepOver",
	"devvm.stepOut",
	"devvm.breakpoints.hitCondition",
	"devvm.breakpoints.resolved", // the breakpoints event
	"devvm.watches.live",         // the watches event after setWatches while stopped
	"devvm.stopOnException",
	"enable.wait", // AURA_DEBUG_WAIT=1 / --wait-enable
}

// HelloEvent is sent once at startup.
type HelloEvent struct {
	Event        string   `json:"event"`
	Protocol     int      `json:"protocol"`
	Capabilities []string `json:"capabilities"`
}

// WatchResult is one watch at a stop: Value (printed as Kite prints it) or Error.
type WatchResult struct {
	Expr  string  `json:"expr"`
	Value *string `json:"value,omitempty"`
	Error string  `json:"error,omitempty"`
}

// StoppedEvent is sent when the Dev-VM stops.
type StoppedEvent struct {
	Event   string            `json:"event"`
	Reason  string            `json:"reason"` // pause, step, breakpoint, exception
	File    string            `json:"file"`
	Line    int               `json:"line"`
	Col     int               `json:"col"`
	Env     map[string]string `json:"env"`
	Watches []WatchResult     `json:"watches"`
	// Additions.
	Func         string `json:"func,omitempty"`
	BreakpointID int    `json:"breakpoint_id,omitempty"`
	Error        string `json:"error,omitempty"` // a failed condition, or the exception message
}

// WatchesEvent carries fresh watch values after setWatches while stopped (an addition).
type WatchesEvent struct {
	Event   string        `json:"event"`
	Watches []WatchResult `json:"watches"`
}

// BreakpointResult is one breakpoint of a breakpoints event.
type BreakpointResult struct {
	ID            int    `json:"id,omitempty"`
	RequestedLine int    `json:"requested_line"`
	Line          int    `json:"line,omitempty"` // where it bound (next line with code)
	Verified      bool   `json:"verified"`
	Error         string `json:"error,omitempty"`
}

// BreakpointsEvent answers setBreakpoints with where each breakpoint bound (an addition).
type BreakpointsEvent struct {
	Event       string             `json:"event"`
	Breakpoints []BreakpointResult `json:"breakpoints"`
}

// PerfReportEvent is sent at the end of a Dev-VM run with perf on.
type PerfReportEvent struct {
	Event  string     `json:"event"`
	Report PerfReport `json:"report"`
}

// PerfReport is the profile of one run.
type PerfReport struct {
	Timeline    []TimelineEntry  `json:"timeline"`
	FlameFolded string           `json:"flame_folded"`
	Memory      map[string]int64 `json:"memory"`
	// Additions.
	TimelineCap     int   `json:"timeline_cap"`
	TimelineDropped int64 `json:"timeline_dropped"`
	TotalNs         int64 `json:"total_ns"`
}

// TimelineEntry is one executed statement.
type TimelineEntry struct {
	Line  int    `json:"line"`
	Col   int    `json:"col"`
	Kind  string `json:"kind"`
	DurNs int64  `json:"dur_ns"`
}

// NativeLaunchEvent is sent before a native program is launched.
type NativeLaunchEvent struct {
	Event string   `json:"event"`
	Exe   string   `json:"exe"`
	Args  []string `json:"args"`
}

// NativeExitEvent is sent when a native program has ended: Code when it exited, Signal
// (and no code) when a signal killed it.
type NativeExitEvent struct {
	Event  string `json:"event"`
	Code   *int   `json:"code,omitempty"`
	Signal string `json:"signal,omitempty"`
	Error  string `json:"error,omitempty"` // it could not be launched (code 127)
}

// TerminatedEvent is sent when a terminate request ended the program.
type TerminatedEvent struct {
	Event  string `json:"event"`
	Target string `json:"target"` // devvm or native
}
