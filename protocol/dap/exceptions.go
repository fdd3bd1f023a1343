package dap

// Exception breakpoint filters: "runtime" (a Kite runtime error, a native program's
// signal: stops where the program would end), and for native programs "cpp_throw" and
// "cpp_catch", the engine's exception catchpoints (gdb's catch throw and catch catch) set
// and deleted as the client ticks the boxes.

import (
	"fmt"
	"slices"

	godap "github.com/google/go-dap"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/launch"
)

// cppFilters are the filters of a target that can catch C++ exceptions.
var cppFilters = []godap.ExceptionBreakpointsFilter{
	{Filter: "cpp_throw", Label: "C++: on throw", Description: "Stop where a C++ exception is thrown"},
	{Filter: "cpp_catch", Label: "C++: on catch", Description: "Stop where a C++ exception is caught"},
}

// cppEvents are the engine's exception events of the C++ filters.
var cppEvents = map[string]string{"cpp_throw": engine.ExceptionThrow, "cpp_catch": engine.ExceptionCatch}

// setExceptionFilters turns the filters on that the client lists and the others off.
func (c *conn) setExceptionFilters(d *launch.Debuggee, filters []string) error {
	runtime := false
	for _, f := range filters {
		_, cpp := cppEvents[f]
		if f != "runtime" && !cpp {
			return fmt.Errorf("unknown exception filter %q (there are \"runtime\", \"cpp_throw\" and \"cpp_catch\")", f)
		}
		runtime = runtime || f == "runtime"
	}
	d.SetExceptionStops(runtime && !c.args.NoDebug)
	if c.cppCatches == nil {
		c.cppCatches = map[string]int{}
	}
	for f, event := range cppEvents {
		want := slices.Contains(filters, f) && !c.args.NoDebug
		id, have := c.cppCatches[f]
		switch {
		case want && !have:
			cp, err := d.CatchExceptions(event)
			if err != nil {
				return err
			}
			c.cppCatches[f] = cp.ID
		case !want && have:
			delete(c.cppCatches, f)
			if err := d.RemoveCatchpoint(id); err != nil {
				return err
			}
		}
	}
	return nil
}

// exceptionInfo answers exceptionInfo at an exception stop: a C++ exception a filter
// caught (its type and what(), when the target can tell them), or a runtime error or
// signal.
func exceptionInfo(d *launch.Debuggee, st *engine.Stop) godap.ExceptionInfoResponseBody {
	if st.BreakpointID == 0 || st.Signal != "" {
		return godap.ExceptionInfoResponseBody{ExceptionId: "runtime", Description: st.Text, BreakMode: "unhandled"}
	}
	body := godap.ExceptionInfoResponseBody{ExceptionId: "cpp", Description: st.Text, BreakMode: "always"}
	if typ, msg, err := d.DescribeException(); err == nil && typ != "" {
		body.ExceptionId = typ
		body.Details = &godap.ExceptionDetails{TypeName: typ, Message: msg}
		body.Description = d.ExceptionText(st)
	}
	return body
}
