package gdbcmd

// gdb's display and undisplay, and enable display, disable display and delete display: the
// displays numbered (all of them without numbers) shown at each stop again, not shown, or gone.

import (
	"strings"

	"github.com/polydbg/polydbg/engine"
)

// displayNumbers are the display numbers args names (all of them for none); false, said,
// for one that is no display.
func (d *Debugger) displayNumbers(args string) ([]int, bool) {
	var ids []int
	if strings.TrimSpace(args) == "" {
		for _, w := range d.s.Watches() {
			ids = append(ids, w.ID)
		}
		return ids, true
	}
	known := map[int]bool{}
	for _, w := range d.s.Watches() {
		known[w.ID] = true
	}
	for _, f := range strings.Fields(args) {
		n, ok := atoi(f)
		if !ok || !known[n] {
			d.fail("No display number %s.\n", f)
			return nil, false
		}
		ids = append(ids, n)
	}
	return ids, true
}

// enableDisplays is enable display and disable display.
func (d *Debugger) enableDisplays(on bool, args string) {
	ids, ok := d.displayNumbers(args)
	if !ok {
		return
	}
	if d.displayOff == nil {
		d.displayOff = map[int]bool{}
	}
	for _, id := range ids {
		if on {
			delete(d.displayOff, id)
		} else {
			d.displayOff[id] = true
		}
	}
}

// deleteDisplays is delete display (undisplay): without numbers, after gdb's question.
func (d *Debugger) deleteDisplays(args string) {
	if strings.TrimSpace(args) == "" && len(d.s.Watches()) > 0 && !d.query("Delete all auto-display expressions? ") {
		return
	}
	ids, ok := d.displayNumbers(args)
	if !ok {
		return
	}
	for _, id := range ids {
		_ = d.s.RemoveWatch(id)
		delete(d.insnDisplays, id)
		delete(d.displayOff, id)
		delete(d.displayScope, id)
		delete(d.displayTyped, id)
	}
}

func cmdDisplay(d *Debugger, args string) bool {
	if args == "" {
		d.showDisplays(0)
		return false
	}
	if n, expr, ok := instructionFormat(args); ok { // display/i $pc: instructions at each stop
		if d.insnDisplays == nil {
			d.insnDisplays = map[int]int{}
		}
		id := d.s.AddWatchFormat(expr, 0).ID
		d.insnDisplays[id] = n
		d.showNewDisplay(id)
		return false
	}
	format, expr, err := splitFormat(args)
	if err == nil {
		expr, err = d.values.Substitute(expr)
	}
	if err != nil {
		d.fail("%v\n", err)
		return false
	}
	if _, err := d.evalWith(expr, engine.EvalMode{Pure: true}); err != nil && unparsed(err) { // gdb reads the names at once
		d.fail("%s\n", explain(err))
		return false
	}
	fn, bound := d.displayScopeOf(expr)
	id := d.s.AddWatchFormat(bound, format).ID
	if bound != expr { // shown as typed
		if d.displayTyped == nil {
			d.displayTyped = map[int]string{}
		}
		d.displayTyped[id] = expr
	}
	if fn != "" {
		if d.displayScope == nil {
			d.displayScope = map[int]string{}
		}
		d.displayScope[id] = fn
	}
	d.showNewDisplay(id)
	return false
}

// displayScopeOf reads the names of expr as gdb binds a display's: fn is the function of
// the selected frame when expr names one of its arguments or locals (a member's name after
// ., -> or :: aside), whose frames alone show it, "" for an expression of globals, shown
// everywhere; a static local of the function is read as FUNCTION::NAME in bound, so that
// it is shown from any frame (gdb's display holds the symbol, not the name).
func (d *Debugger) displayScopeOf(expr string) (fn, bound string) {
	frames, err := d.s.Stack()
	if err != nil || d.frame >= len(frames) {
		return "", expr
	}
	scopes, err := d.s.Scopes(d.frame)
	if err != nil {
		return "", expr
	}
	local := map[string]bool{}
	for _, sc := range scopes {
		if sc.Name != "Locals" {
			continue
		}
		vars, _ := d.s.Variables(sc.Ref)
		for _, v := range vars {
			local[v.Name] = true
		}
	}
	sd, _ := d.s.Target().(engine.SymbolDescriber)
	here := frames[d.frame].Func
	var b strings.Builder
	for i := 0; i < len(expr); {
		if !isNameStart(expr[i]) || i > 0 && (isNameStart(expr[i-1]) || expr[i-1] >= '0' && expr[i-1] <= '9') {
			b.WriteByte(expr[i])
			i++
			continue
		}
		j := i
		for j < len(expr) && (isNameStart(expr[j]) || expr[j] >= '0' && expr[j] <= '9') {
			j++
		}
		name := expr[i:j]
		member := i > 0 && strings.IndexByte(".>$:", expr[i-1]) >= 0
		switch {
		case member || !local[name]:
		case sd != nil && isStaticLocal(sd, d.frame, name):
			name = here + "::" + name
		default:
			fn = here
		}
		b.WriteString(name)
		i = j
	}
	return fn, b.String()
}

// unparsed reports whether err says an expression could not be read, not that its value
// could not be: a syntax error or a name that is nowhere.
func unparsed(err error) bool {
	msg := explain(err)
	for _, p := range []string{"No symbol ", "A syntax error", "Invalid character", "Junk after"} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// isStaticLocal reports whether the local name of a frame lives in static storage.
func isStaticLocal(sd engine.SymbolDescriber, frame int, name string) bool {
	_, where, err := sd.DescribeSymbol(frame, name)
	return err == nil && strings.HasPrefix(where, "static storage")
}

// outOfScope reports whether display w reads locals that the selected frame does not
// have: another function's, or a block's the frame is not in.
func (d *Debugger) outOfScope(w engine.Watch) bool {
	scope := d.displayScope[w.ID]
	if scope == "" {
		return false
	}
	if fn, ok := d.selectedFunc(); !ok || fn != scope {
		return true
	}
	_, err := d.s.Evaluate(d.frame, w.Expr, engine.EvalMode{Pure: true})
	return err != nil && strings.HasPrefix(err.Error(), "No symbol ")
}

// selectedFunc is the function of the selected frame; ok is false without a stack.
func (d *Debugger) selectedFunc() (string, bool) {
	frames, err := d.s.Stack()
	if err != nil || d.frame >= len(frames) {
		return "", false
	}
	return frames[d.frame].Func, true
}

// isNameStart reports whether c may start a C name.
func isNameStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// showNewDisplay shows a display as it is made, to a person at a terminal (gdb -batch
// shows it at the next stop only).
func (d *Debugger) showNewDisplay(id int) {
	if !d.cfg.Batch {
		d.showDisplays(id)
	}
}

func cmdUndisplay(d *Debugger, args string) bool { d.deleteDisplays(args); return false }
