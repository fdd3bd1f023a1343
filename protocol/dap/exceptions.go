package dap

// Exception breakpoint filters: "runtime" (a Kite runtime error, a native program's
// signal: stops where the program would end), and for native programs "cpp_throw" and
// "cpp_catch", the engine's exception catchpoints (gdb's catch throw and catch catch) set
// and deleted as the client ticks the boxes, with a condition the type's regular
// expression (gdb's catch throw REGEX).

import (
	"fmt"

	godap "github.com/google/go-dap"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/launch"
)

// cppFilters are the filters of a target that can catch C++ exceptions.
var cppFilters = []godap.ExceptionBreakpointsFilter{
	{Filter: "cpp_throw", Label: "C++: on throw", Description: "Stop where a C++ exception is thrown",
		SupportsCondition: true, ConditionDescription: typeCondition},
	{Filter: "cpp_catch", Label: "C++: on catch", Description: "Stop where a C++ exception is caught",
		SupportsCondition: true, ConditionDescription: typeCondition},
}

// typeCondition describes a C++ filter's condition: gdb's catch throw REGEX.
const typeCondition = "A regular expression the exception's type must match (out_of_range, ^std::)"

// cppCatch is the catchpoint of a C++ filter that is on, with its condition.
type cppCatch struct {
	id        int
	condition string
}

// cppEvents are the engine's exception events of the C++ filters.
var cppEvents = map[string]string{"cpp_throw": engine.ExceptionThrow, "cpp_catch": engine.ExceptionCatch}

// setExceptionFilters turns the filters on that the client lists (filters, or filterOptions
// with a condition) and the others off.
func (c *conn) setExceptionFilters(d *launch.Debuggee, args godap.SetExceptionBreakpointsArguments) error {
	want := map[string]string{} // filter: condition
	for _, f := range args.Filters {
		want[f] = ""
	}
	for _, o := range args.FilterOptions {
		want[o.FilterId] = o.Condition
	}
	for f := range want {
		if _, cpp := cppEvents[f]; f != "runtime" && !cpp {
			return fmt.Errorf("unknown exception filter %q (there are \"runtime\", \"cpp_throw\" and \"cpp_catch\")", f)
		}
	}
	_, runtime := want["runtime"]
	d.SetExceptionStops(runtime && !c.args.NoDebug)
	if c.cppCatches == nil {
		c.cppCatches = map[string]cppCatch{}
	}
	for f, event := range cppEvents {
		cond, on := want[f]
		on = on && !c.args.NoDebug
		have, had := c.cppCatches[f]
		if had && (!on || have.condition != cond) {
			delete(c.cppCatches, f)
			if err := d.RemoveCatchpoint(have.id); err != nil {
				return err
			}
		}
		if on && (!had || have.condition != cond) {
			cp, err := d.CatchExceptionsMatching(event, cond)
			if err != nil {
				return err
			}
			c.cppCatches[f] = cppCatch{cp.ID, cond}
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
