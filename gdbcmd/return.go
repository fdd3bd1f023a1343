package gdbcmd

import (
	"errors"
	"strings"

	"github.com/polydbg/polydbg/engine"
)

// cmdReturn is gdb's return [EXPR]: the selected frame's function returns at once, the
// frames inside it with it, with EXPR as its value (engine.Session.Return). As gdb, it
// asks first and shows the frame it returned to when its command comes from its user (a
// terminal or standard input), and does neither in a script, a command list or -batch.
func cmdReturn(d *Debugger, args string) bool {
	frames, err := d.s.Stack()
	if err != nil || d.frame >= len(frames) || !d.live() {
		d.fail("No selected frame.\n")
		return false
	}
	value := ""
	if args != "" { // evaluated first, as print does ($N, convenience variables), then asked
		v, err := d.eval(args, true)
		if err != nil {
			d.fail("%s\n", explain(err))
			return false
		}
		if f := strings.Fields(v.Value); len(f) > 0 {
			value = f[0] // the value as a literal ("97 'a'" is 97)
		}
	}
	fromUser := d.fromUser()
	if fromUser {
		question := "Make selected stack frame return now? "
		if fn := frames[d.frame].Func; fn != "" {
			question = "Make " + fn + " return now? "
		}
		if !d.query(question) {
			d.fail("Not confirmed\n")
			return false
		}
	}
	if err := d.s.Return(d.frame, value); err != nil {
		if errors.Is(err, engine.ErrUnsupported) {
			d.fail("return: this target cannot make a function return early.\n")
		} else {
			d.fail("%s\n", explain(err))
		}
		return false
	}
	d.frame = 0
	if st := d.s.LastStop(); st != nil {
		depth, _ := d.s.Depth()
		d.midLine = d.s.MidStatement(st.Location)
		d.lastFrame = stopFrame{st.Location.Func, depth}
	}
	if fromUser {
		d.selectFrame(0)
	}
	return false
}
