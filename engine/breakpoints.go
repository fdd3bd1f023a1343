package engine

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// BreakpointKind says how a breakpoint names its place.
type BreakpointKind int

const (
	LineBreakpoint        BreakpointKind = iota // File and Line
	FunctionBreakpoint                          // Function
	InstructionBreakpoint                       // PC
)

// BreakpointSpec is what a client asks for.
type BreakpointSpec struct {
	Kind     BreakpointKind
	File     string
	Line     int
	Function string
	PC       uint64

	Condition    string // stop only when this expression is true (evaluated pure)
	HitCondition string // ">= 3", "% 2", "== 5", "< 4", or "N" (the same as ">= N")
	LogMessage   string // print this, with ${expr} parts evaluated, instead of stopping
	// LogFormat prints instead of stopping as gdb's dprintf: `"FORMAT", ARG...`, a quoted C
	// format whose conversions take the values of the arguments (see Sprintf).
	LogFormat string
	Temporary bool // delete after its first stop (tbreak)
	Disabled  bool // kept, but not reached: no stop, no hit, no log (gdb's disable)
	// Counted makes it disable itself once StopsLeft more stops are made (gdb's enable once
	// and enable count, whose disposition "dis" stays after that).
	Counted   bool
	StopsLeft int
}

// Breakpoint is a breakpoint as set: its unique id and where it really bound.
type Breakpoint struct {
	ID       int
	Spec     BreakpointSpec
	Location Location // where it bound (a line with no code moves to the next one)
	Verified bool
	Hits     int    // times its location was reached with its condition true
	Message  string // why it is not verified
	// Pending is set on one kept without a place until a shared library brings its file or
	// function (placed then, when the program loads it); Location is where it was in the
	// run before, if any, for showing.
	Pending bool
}

// hitCondition is a parsed HitCondition.
type hitCondition struct {
	op string
	n  int
}

var hitRe = regexp.MustCompile(`^\s*(>=|<=|==|>|<|%)?\s*(\d+)\s*$`)

func parseHitCondition(s string) (*hitCondition, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	m := hitRe.FindStringSubmatch(s)
	if m == nil {
		return nil, fmt.Errorf("invalid hit condition %q (want e.g. \">= 3\", \"%% 2\", \"== 5\")", s)
	}
	n, err := strconv.Atoi(m[2])
	if err != nil {
		return nil, fmt.Errorf("invalid hit condition %q: %w", s, err)
	}
	op := m[1]
	if op == "" {
		op = ">="
	}
	if op == "%" && n == 0 {
		return nil, fmt.Errorf("invalid hit condition %q: modulo by zero", s)
	}
	return &hitCondition{op: op, n: n}, nil
}

// met reports whether the hit count satisfies the condition.
func (h *hitCondition) met(hits int) bool {
	if h == nil {
		return true
	}
	switch h.op {
	case ">":
		return hits > h.n
	case "<":
		return hits < h.n
	case "<=":
		return hits <= h.n
	case "==":
		return hits == h.n
	case "%":
		return hits%h.n == 0
	}
	return hits >= h.n
}

// logPart is a literal piece of a log message, or an expression to interpolate.
type logPart struct {
	text string
	expr bool
	cond Condition // the compiled expression
	spec string    // a dprintf's conversion of it ("%5d" and verb 'd'); verb 0: as printed
	verb byte
}

// parseLogMessage splits "x is ${x}" into its literal and ${expression} parts.
func parseLogMessage(msg string) ([]logPart, error) {
	var parts []logPart
	for {
		i := strings.Index(msg, "${")
		if i < 0 {
			if msg != "" {
				parts = append(parts, logPart{text: msg})
			}
			return parts, nil
		}
		if i > 0 {
			parts = append(parts, logPart{text: msg[:i]})
		}
		depth, j := 0, i+2
		for ; j < len(msg); j++ {
			if msg[j] == '{' {
				depth++
			} else if msg[j] == '}' {
				if depth == 0 {
					break
				}
				depth--
			}
		}
		if j >= len(msg) {
			return nil, fmt.Errorf("log message: unclosed ${ at offset %d", i)
		}
		parts = append(parts, logPart{text: msg[i+2 : j], expr: true})
		msg = msg[j+1:]
	}
}

// bpState is a breakpoint with what the engine prepared to check it quickly.
type bpState struct {
	bp      Breakpoint
	key     locKey
	condErr string // the condition did not compile: every hit stops and says so
	cond    Condition
	hit     *hitCondition
	log     []logPart
}

// locKey identifies a trap location: its pc when it has one, else file and line.
type locKey struct {
	pc   uint64
	file string
	line int
}

func locationKey(l Location) locKey {
	if l.HasPC {
		return locKey{pc: l.PC}
	}
	return locKey{file: l.File, line: l.Line}
}
