package dap

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"

	godap "github.com/google/go-dap"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/launch"
)

// baseCapabilities are what every kind of debuggee supports; targetCapabilities adds the
// rest once the kind is known (a "capabilities" event after launch).
func baseCapabilities() capabilities {
	return capabilities{Capabilities: godap.Capabilities{
		SupportsConfigurationDoneRequest:  true,
		SupportsFunctionBreakpoints:       true,
		SupportsConditionalBreakpoints:    true,
		SupportsHitConditionalBreakpoints: true,
		SupportsLogPoints:                 true,
		SupportsEvaluateForHovers:         true,
		SupportsClipboardContext:          true,
		ExceptionBreakpointFilters: []godap.ExceptionBreakpointsFilter{{Filter: "runtime",
			Label: "Runtime errors", Description: "Stop where a Kite runtime error would end the program", Default: true}},
		SupportsExceptionInfoRequest:       true,
		SupportsCompletionsRequest:         true,
		SupportsValueFormattingOptions:     true, // hex in variables and evaluate
		SupportsRestartRequest:             true,
		SupportsTerminateRequest:           true,
		SupportTerminateDebuggee:           true,
		SupportsDelayedStackTraceLoading:   true,
		SupportsLoadedSourcesRequest:       true,
		SupportsCancelRequest:              true,
		SupportsSteppingGranularity:        true,
		SupportsBreakpointLocationsRequest: true,
	}}
}

func targetCapabilities(d *launch.Debuggee) capabilities {
	c := baseCapabilities()
	t := d.Target()
	if _, ok := t.(engine.InstructionResolver); ok {
		c.SupportsInstructionBreakpoints = true
	}
	c.SupportsDisassembleRequest = canDisassemble(d)
	c.SupportsGotoTargetsRequest = canGoto(d)
	c.SupportsStepInTargetsRequest = canStepIntoCalls(d)
	c.SupportsDataBreakpoints = canWatch(d)
	if _, ok := t.(engine.ExceptionSites); ok {
		c.ExceptionBreakpointFilters = append(c.ExceptionBreakpointFilters, cppFilters...)
		c.SupportsExceptionFilterOptions = true
	}
	c.SupportsModulesRequest = canModules(d)
	if d.CanSetVariables() {
		c.SupportsSetVariable, c.SupportsSetExpression = true, true
	}
	if _, ok := t.(engine.MemoryAccess); ok {
		c.SupportsReadMemoryRequest, c.SupportsWriteMemoryRequest = true, true
	}
	return c
}

// dispatch runs one decoded request and returns its response body.
func (c *conn) dispatch(ctx context.Context, msg godap.Message) (any, error) {
	if r, ok := msg.(*godap.InitializeRequest); ok {
		_ = r
		return baseCapabilities(), nil
	}
	if !c.authed {
		switch m := msg.(type) {
		case *godap.LaunchRequest:
		case *godap.AttachRequest:
		case *godap.DisconnectRequest:
			return nil, c.disconnect(ctx, m.Arguments)
		default:
			_ = m
			return nil, errors.New("unauthorized: launch or attach with the server's \"token\" first")
		}
	}
	switch r := msg.(type) {
	case *godap.LaunchRequest:
		return c.start(ctx, &rawRequest{Request: r.Request, Arguments: r.Arguments}, false)
	case *godap.AttachRequest:
		return c.start(ctx, &rawRequest{Request: r.Request, Arguments: r.Arguments}, true)
	case *godap.DisconnectRequest:
		return nil, c.disconnect(ctx, r.Arguments)
	case *godap.CancelRequest:
		return nil, nil // acted on by the reader; a finished request is not an error
	case *godap.ConfigurationDoneRequest:
		return nil, c.configurationDone()
	case *godap.RestartRequest:
		return nil, c.restart(ctx)
	}
	d, err := c.need()
	if err != nil {
		return nil, err
	}
	if err := c.selectFor(d, msg); err != nil {
		return nil, err
	}
	switch r := msg.(type) {
	case *godap.TerminateRequest:
		return nil, d.Terminate()
	case *godap.SetBreakpointsRequest:
		return c.setBreakpoints(d, r.Arguments), nil
	case *godap.BreakpointLocationsRequest:
		lines, err := d.BreakpointLocations(c.srcMap.built(r.Arguments.Source.Path), r.Arguments.Line, r.Arguments.EndLine)
		if err != nil {
			return nil, err
		}
		body := godap.BreakpointLocationsResponseBody{Breakpoints: make([]godap.BreakpointLocation, len(lines))}
		for i, l := range lines {
			body.Breakpoints[i].Line = l
		}
		return body, nil
	case *godap.SetFunctionBreakpointsRequest:
		specs := make([]engine.BreakpointSpec, len(r.Arguments.Breakpoints))
		for i, b := range r.Arguments.Breakpoints {
			specs[i] = engine.BreakpointSpec{Function: b.Name, Condition: b.Condition, HitCondition: b.HitCondition}
		}
		return c.breakpointsBody(d, len(specs), func() []engine.Breakpoint { return d.SetFunctionBreakpoints(specs) }), nil
	case *godap.SetInstructionBreakpointsRequest:
		specs := make([]engine.BreakpointSpec, len(r.Arguments.Breakpoints))
		for i, b := range r.Arguments.Breakpoints {
			pc, err := parseRef(b.InstructionReference, b.Offset)
			if err != nil {
				return nil, err
			}
			specs[i] = engine.BreakpointSpec{PC: pc, Condition: b.Condition, HitCondition: b.HitCondition}
		}
		return c.breakpointsBody(d, len(specs), func() []engine.Breakpoint { return d.SetInstructionBreakpoints(specs) }), nil
	case *godap.SetExceptionBreakpointsRequest:
		return nil, c.setExceptionFilters(d, r.Arguments)
	case *godap.ThreadsRequest:
		return c.threads(ctx, d), nil
	case *godap.StackTraceRequest:
		return c.stackTrace(d, r.Arguments)
	case *godap.ScopesRequest:
		return c.scopesNoted(d, r.Arguments.FrameId)
	case *godap.VariablesRequest:
		if isPeripheralRef(r.Arguments.VariablesReference) {
			vars, err := peripheralVariables(d, r.Arguments.VariablesReference)
			return godap.VariablesResponseBody{Variables: vars}, err
		}
		return c.variables(d, r.Arguments)
	case *godap.EvaluateRequest:
		return c.evaluate(d, r.Arguments)
	case *godap.ContinueRequest:
		return godap.ContinueResponseBody{AllThreadsContinued: true}, c.resume(d, engine.Continue)
	case *godap.NextRequest:
		return nil, c.resume(d, stepMode(r.Arguments.Granularity, engine.StepOver))
	case *godap.StepInRequest:
		return nil, c.stepIn(d, r.Arguments)
	case *godap.StepInTargetsRequest:
		return c.stepInTargets(d, r.Arguments)
	case *godap.StepOutRequest:
		return nil, c.resume(d, engine.StepOut)
	case *godap.PauseRequest:
		return nil, d.Pause()
	case *godap.ExceptionInfoRequest:
		st := d.LastStop()
		if st == nil || st.Reason != engine.ReasonException {
			return nil, errors.New("not stopped on an exception")
		}
		return exceptionInfo(d, st), nil
	case *godap.LoadedSourcesRequest:
		var srcs []godap.Source
		if d.Spec.Program != "" && (d.Spec.Kind == launch.Kite || d.Spec.Kind == launch.Cartridge) {
			srcs = append(srcs, *c.source(d.Spec.Program))
		}
		return godap.LoadedSourcesResponseBody{Sources: srcs}, nil
	case *godap.CompletionsRequest:
		return c.completions(d, r.Arguments)
	case *godap.SetVariableRequest:
		return c.setVariable(d, r.Arguments)
	case *godap.SetExpressionRequest:
		return c.setExpression(d, r.Arguments)
	case *godap.ModulesRequest:
		return c.modules(ctx, d, r.Arguments)
	case *godap.DataBreakpointInfoRequest:
		return c.dataBreakpointInfo(d, r.Arguments)
	case *godap.SetDataBreakpointsRequest:
		return c.setDataBreakpoints(d, r.Arguments)
	case *godap.GotoTargetsRequest:
		return c.gotoTargets(d, r.Arguments)
	case *godap.GotoRequest:
		return nil, c.gotoTarget(d, r.Arguments)
	case *godap.DisassembleRequest:
		return c.disassembleAny(ctx, d, r.Arguments)
	case *godap.ReadMemoryRequest:
		return readMemory(d, r.Arguments)
	case *godap.WriteMemoryRequest:
		return writeMemory(d, r.Arguments)
	case *rawRequest:
		return c.custom(d, r)
	}
	return nil, fmt.Errorf("%s is not supported", msg.(godap.RequestMessage).GetRequest().Command)
}

// resume continues or steps; the continued event it causes is not echoed. A step lets the
// program run before the response is written (handle).
func (c *conn) resume(d *launch.Debuggee, mode engine.ResumeMode) error {
	return c.resumeTold(d, mode, false)
}

// resumeTold is resume, with the continued event sent when tell is set: the client did not
// ask for the run itself (-exec next in the debug console).
func (c *conn) resumeTold(d *launch.Debuggee, mode engine.ResumeMode, tell bool) error {
	seq := d.Seq()
	if err := d.Resume(mode); err != nil {
		return err
	}
	if !tell {
		c.ownContinues++
	}
	if mode != engine.Continue {
		c.stepFrom = max(seq, 1)
	}
	return nil
}

func stepMode(g godap.SteppingGranularity, line engine.ResumeMode) engine.ResumeMode {
	if g == "instruction" {
		return engine.StepInstruction
	}
	return line
}

func (c *conn) setBreakpoints(d *launch.Debuggee, a godap.SetBreakpointsArguments) any {
	specs := make([]engine.BreakpointSpec, 0, len(a.Breakpoints)+len(a.Lines))
	for _, b := range a.Breakpoints {
		specs = append(specs, engine.BreakpointSpec{Line: b.Line, Condition: b.Condition,
			HitCondition: b.HitCondition, LogMessage: b.LogMessage})
	}
	if len(a.Breakpoints) == 0 {
		for _, l := range a.Lines {
			specs = append(specs, engine.BreakpointSpec{Line: l})
		}
	}
	path := c.srcMap.built(a.Source.Path) // the client's file, as the program knows it
	return c.breakpointsBody(d, len(specs), func() []engine.Breakpoint { return d.SetBreakpoints(path, specs) })
}

// breakpointsBody runs a breakpoint change and answers with its breakpoints; the engine's
// breakpoint events for this change are not echoed.
// Without debugging (noDebug), nothing is set and every breakpoint is unverified.
func (c *conn) breakpointsBody(d *launch.Debuggee, n int, set func() []engine.Breakpoint) godap.SetBreakpointsResponseBody {
	if c.args.NoDebug {
		out := make([]godap.Breakpoint, n)
		for i := range out {
			out[i].Message = "noDebug: the program runs without breakpoints"
		}
		return godap.SetBreakpointsResponseBody{Breakpoints: out}
	}
	bps := set()
	c.ownBreakpoint = d.Seq()
	out := make([]godap.Breakpoint, len(bps))
	for i, bp := range bps {
		out[i] = c.breakpoint(bp)
	}
	return godap.SetBreakpointsResponseBody{Breakpoints: out}
}

// source is a file of the program as the client is told of it: where it is on this
// machine when the launch's sourceFileMap says (srcmap.go).
func (c *conn) source(file string) *godap.Source {
	file = c.srcMap.local(file)
	return &godap.Source{Name: filepath.Base(file), Path: file}
}

// pcRef is a memory or instruction reference.
func pcRef(pc uint64) string { return "0x" + strconv.FormatUint(pc, 16) }

// parseRef reads a memory reference (0x hex or decimal) plus an offset.
func parseRef(ref string, offset int) (uint64, error) {
	v, err := engine.ParseAddress(ref)
	if err != nil {
		return 0, fmt.Errorf("memory reference: %w", err)
	}
	return uint64(int64(v) + int64(offset)), nil
}

func readMemory(d *launch.Debuggee, a godap.ReadMemoryArguments) (any, error) {
	addr, err := parseRef(a.MemoryReference, a.Offset)
	if err != nil {
		return nil, err
	}
	if a.Count == 0 {
		return godap.ReadMemoryResponseBody{Address: pcRef(addr)}, nil
	}
	data, err := d.ReadMemory(addr, a.Count)
	if err != nil {
		return nil, err
	}
	return godap.ReadMemoryResponseBody{Address: pcRef(addr), Data: base64.StdEncoding.EncodeToString(data),
		UnreadableBytes: a.Count - len(data)}, nil
}

func writeMemory(d *launch.Debuggee, a godap.WriteMemoryArguments) (any, error) {
	addr, err := parseRef(a.MemoryReference, a.Offset)
	if err != nil {
		return nil, err
	}
	data, err := base64.StdEncoding.DecodeString(a.Data)
	if err != nil {
		return nil, fmt.Errorf("data is not base64: %w", err)
	}
	if err := d.WriteMemory(addr, data); err != nil {
		return nil, err
	}
	return godap.WriteMemoryResponseBody{BytesWritten: len(data)}, nil
}
