package aura

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/polydbg/polydbg/internal/wire"
	"github.com/polydbg/polydbg/internal/wirejson"
)

// MaxLineBytes bounds one command line; a longer line is skipped (and reported).
const MaxLineBytes = 1 << 20

// Command names (the "cmd" field).
const (
	CmdEnable         = "enable"
	CmdPause          = "pause"
	CmdContinue       = "continue"
	CmdStep           = "step"
	CmdStepIn         = "stepIn"
	CmdStepOver       = "stepOver"
	CmdStepOut        = "stepOut"
	CmdSetBreakpoints = "setBreakpoints"
	CmdSetWatches     = "setWatches"
	CmdTerminate      = "terminate"
)

var knownCommands = map[string]bool{}

// commandNames are the commands' names.
var commandNames = []string{CmdEnable, CmdPause, CmdContinue, CmdStep, CmdStepIn, CmdStepOver,
	CmdStepOut, CmdSetBreakpoints, CmdSetWatches, CmdTerminate}

func init() {
	for _, name := range commandNames {
		knownCommands[name] = true
	}
}

// Command is one parsed command line. Fields that a command does not use are zero.
type Command struct {
	Cmd string
	// enable: nil means "not given" (the current setting stays).
	StartPaused     *bool
	Perf            *bool
	StopOnException *bool
	// setBreakpoints: the whole new set.
	Breakpoints []Breakpoint
	// setWatches: the whole new list of expressions.
	Watches []string
}

// Breakpoint is one breakpoint of a setBreakpoints command.
type Breakpoint struct {
	Line         int
	Condition    string
	HitCondition string
}

// wireCommand is the JSON shape of a command. Both the document's snake_case and the IDE's
// camelCase spellings are accepted.
type wireCommand struct {
	Cmd                  *string           `json:"cmd"`
	StartPaused          *bool             `json:"start_paused"`
	StartPausedCamel     *bool             `json:"startPaused"`
	Perf                 *bool             `json:"perf"`
	StopOnException      *bool             `json:"stop_on_exception"`
	StopOnExceptionCamel *bool             `json:"stopOnException"`
	Breakpoints          []json.RawMessage `json:"breakpoints"`
	Watches              []json.RawMessage `json:"watches"`
}

type wireBreakpoint struct {
	Line              *int    `json:"line"`
	Condition         string  `json:"condition"`
	HitCondition      string  `json:"hit_condition"`
	HitConditionCamel *string `json:"hitCondition"`
}

type wireWatch struct {
	Expr *string `json:"expr"`
}

// takesArguments are the commands that read keys other than "cmd".
var takesArguments = map[string]bool{CmdEnable: true, CmdSetBreakpoints: true, CmdSetWatches: true}

// bareCommand reads a line that is exactly {"cmd":"NAME"} with a known command's name, as
// clients write a step; ok is false for any other line.
func bareCommand(line []byte) (name string, ok bool) {
	const head, tail = `{"cmd":"`, `"}`
	if len(line) <= len(head)+len(tail) || string(line[:len(head)]) != head || string(line[len(line)-len(tail):]) != tail {
		return "", false
	}
	word := line[len(head) : len(line)-len(tail)]
	for _, known := range commandNames {
		if string(word) == known {
			return known, true
		}
	}
	return "", false
}

// ParseCommand parses one command line (without its line end). It returns an error for
// anything that is not a known, well-formed command.
func ParseCommand(line []byte) (Command, error) {
	if name, ok := bareCommand(line); ok && !takesArguments[name] {
		return Command{Cmd: name}, nil // a step, pause, continue...: nothing to decode
	}
	var w wireCommand
	if !wirejson.DecodeFresh(line, &w) { // a plain command line, as encoding/json reads it
		w = wireCommand{}
		dec := json.NewDecoder(bytes.NewReader(line))
		if err := dec.Decode(&w); err != nil {
			return Command{}, fmt.Errorf("not a JSON command object: %w", err)
		}
		if dec.More() {
			return Command{}, errors.New("trailing data after the JSON object")
		}
	}
	if w.Cmd == nil {
		return Command{}, errors.New(`missing "cmd"`)
	}
	c := Command{Cmd: *w.Cmd}
	if !knownCommands[c.Cmd] {
		return Command{}, fmt.Errorf("unknown command %q", truncate(c.Cmd, 64))
	}
	switch c.Cmd {
	case CmdEnable:
		c.StartPaused = firstBool(w.StartPausedCamel, w.StartPaused)
		c.Perf = w.Perf
		c.StopOnException = firstBool(w.StopOnExceptionCamel, w.StopOnException)
	case CmdSetBreakpoints:
		c.Breakpoints = []Breakpoint{}
		for i, raw := range w.Breakpoints {
			b, err := parseBreakpoint(raw)
			if err != nil {
				return Command{}, fmt.Errorf("breakpoint %d: %w", i, err)
			}
			c.Breakpoints = append(c.Breakpoints, b)
		}
	case CmdSetWatches:
		c.Watches = []string{}
		for i, raw := range w.Watches {
			e, err := parseWatch(raw)
			if err != nil {
				return Command{}, fmt.Errorf("watch %d: %w", i, err)
			}
			c.Watches = append(c.Watches, e)
		}
	}
	return c, nil
}

// firstBool returns the camelCase value when given, else the snake_case one.
func firstBool(camel, snake *bool) *bool {
	if camel != nil {
		return camel
	}
	return snake
}

// parseBreakpoint accepts {"line":N,"condition":"..."} and, leniently, a bare line number.
func parseBreakpoint(raw json.RawMessage) (Breakpoint, error) {
	var n int
	if err := json.Unmarshal(raw, &n); err == nil {
		if n <= 0 {
			return Breakpoint{}, fmt.Errorf("invalid line %d", n)
		}
		return Breakpoint{Line: n}, nil
	}
	var w wireBreakpoint
	if err := json.Unmarshal(raw, &w); err != nil {
		return Breakpoint{}, err
	}
	if w.Line == nil {
		return Breakpoint{}, errors.New(`missing "line"`)
	}
	if *w.Line <= 0 {
		return Breakpoint{}, fmt.Errorf("invalid line %d", *w.Line)
	}
	b := Breakpoint{Line: *w.Line, Condition: strings.TrimSpace(w.Condition), HitCondition: w.HitCondition}
	if w.HitConditionCamel != nil {
		b.HitCondition = *w.HitConditionCamel
	}
	return b, nil
}

// parseWatch accepts {"expr":"..."} and, leniently, a bare string.
func parseWatch(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return s, nil
	}
	var w wireWatch
	if err := json.Unmarshal(raw, &w); err != nil {
		return "", err
	}
	if w.Expr == nil {
		return "", errors.New(`missing "expr"`)
	}
	return *w.Expr, nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}

// ReadCommands reads NDJSON command lines from r until it ends or fails, calling cmd for
// each valid command and bad for each line it ignores (with the reason). Blank lines are
// skipped; a line longer than max bytes is skipped whole. It returns nil at end of input.
func ReadCommands(r io.Reader, max int, cmd func(Command), bad func(reason string)) error {
	lr := wire.NewLineReader(r, max)
	for {
		line, err := lr.Next()
		switch {
		case errors.Is(err, io.EOF):
			return nil
		case errors.Is(err, wire.ErrLineTooLong):
			bad(fmt.Sprintf("command line longer than %d bytes", max))
		case err != nil:
			return err
		case len(bytes.TrimSpace(line)) == 0:
		default:
			c, perr := ParseCommand(line)
			if perr != nil {
				bad(perr.Error())
			} else {
				cmd(c)
			}
		}
	}
}
