package gdbcmd

// gdb's commands for text of one's own: echo, output, printf, and dprintf (a breakpoint
// that prints).

import (
	"fmt"
	"strings"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/cstring"
)

// cmdEcho is gdb's echo: the text with C escapes (\n, \t, \\, \"), and no newline of its own.
func cmdEcho(d *Debugger, args string) bool {
	d.printf("%s", cstring.Unescape(args))
	return false
}

// cmdOutput is gdb's output: an expression's value alone, with no $N and no newline.
func cmdOutput(d *Debugger, args string) bool {
	if strings.HasPrefix(args, "/") {
		spec, rest, _ := strings.Cut(args, " ")
		if f, raw := rawFormat(spec); raw { // output/r: without the library's printers
			return d.withSet([]string{"print raw-values on"}, func() bool { return cmdOutput(d, f+rest) })
		}
	}
	format, expr, err := splitFormat(args)
	if err == nil && expr == "" {
		err = fmt.Errorf("Argument required (expression to compute).")
	}
	if err != nil {
		d.fail("%v\n", err)
		return false
	}
	v, err := d.eval(expr, d.cfg.ReadOnly) // (gdb's output runs the functions it calls)
	if err != nil {
		d.fail("%s\n", explain(err))
		return false
	}
	d.printf("%s%s", pointerPrefix(v, format), d.fileText(d.s.FormatValue(v, format)))
	return false
}

// cmdPrintf is gdb's printf "FORMAT", ARGS...: C's conversions of the values of the
// arguments, evaluated in the selected frame (engine.Sprintf).
func cmdPrintf(d *Debugger, args string) bool {
	text, err := engine.Sprintf(args, d.valueText)
	if err != nil {
		d.fail("%v\n", err)
		return false
	}
	d.printf("%s", text)
	return false
}

// valueText is an expression's value in the selected frame, as printf takes it.
func (d *Debugger) valueText(expr string) (string, error) {
	v, err := d.eval(expr, d.cfg.ReadOnly)
	if err != nil {
		return "", fmt.Errorf("%s", explain(err))
	}
	return v.Value, nil
}

// cmdDprintf is gdb's dprintf LOCATION,"FORMAT",ARGS...: a breakpoint that prints as printf
// does each time it is reached, and goes on.
func cmdDprintf(d *Debugger, args string) bool {
	loc, call, ok := strings.Cut(args, ",")
	switch {
	case strings.TrimSpace(loc) == "":
		d.fail("Format string required\n")
	case !ok || strings.TrimSpace(call) == "":
		d.fail("Format string required\n")
	default:
		d.setBreak(loc, "Dprintf", func(spec *engine.BreakpointSpec) { spec.LogFormat = strings.TrimSpace(call) })
	}
	return false
}
