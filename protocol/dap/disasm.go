package dap

import (
	"context"
	"errors"
	"fmt"

	godap "github.com/google/go-dap"

	"github.com/polydbg/polydbg/launch"
)

// canDisassemble says whether disassemble is served for d: cartridges and plain Kite
// programs (bytecode, one address per instruction, so any offset is exact), and native
// programs and firmware whose objdump is installed (machine code, decoded from the start
// of the function so that offsets back count whole instructions).
func canDisassemble(d *launch.Debuggee) bool {
	return d.Console != nil || d.Spec.Kind == launch.Kite || d.CanDisassembleMachineCode()
}

// disassembleAny serves disassemble: a cartridge through its console, a Kite program
// through launch's disassembler, machine code through objdump, each instruction with the
// source line it belongs to.
func (c *conn) disassembleAny(ctx context.Context, d *launch.Debuggee, a godap.DisassembleArguments) (any, error) {
	if d.Console != nil {
		return c.disassemble(d, a)
	}
	if d.CanDisassembleMachineCode() {
		return c.disassembleMachine(ctx, d, a)
	}
	if !canDisassemble(d) {
		return nil, errors.New("disassemble: only Kite programs and cartridges can be disassembled")
	}
	pc, err := parseRef(a.MemoryReference, a.Offset)
	if err != nil {
		return nil, err
	}
	if a.InstructionCount <= 0 {
		return disassembleBody{Instructions: []disassembledInstruction{}}, nil
	}
	start := int64(pc) + int64(a.InstructionOffset)
	out := make([]disassembledInstruction, 0, a.InstructionCount)
	for start < 0 && len(out) < a.InstructionCount { // before the program: filler, as the spec asks
		out = append(out, invalidInstruction(fmt.Sprintf("%d", start)))
		start++
	}
	next := start
	if n := a.InstructionCount - len(out); n > 0 {
		ins, err := d.Disassemble(ctx, uint64(start), n)
		if err != nil {
			return nil, err
		}
		for _, in := range ins {
			di := disassembledInstruction{DisassembledInstruction: godap.DisassembledInstruction{
				Address: pcRef(in.PC), Instruction: in.Text}}
			if loc, err := d.ResolvePC(in.PC); err == nil {
				di.Symbol, di.Line, di.Column = loc.Func, loc.Line, loc.Col
				if loc.File != "" {
					di.Location = c.source(loc.File)
				}
			}
			out = append(out, di)
			next = int64(in.PC) + 1
		}
	}
	for ; len(out) < a.InstructionCount; next++ { // after the end
		out = append(out, invalidInstruction(pcRef(uint64(next))))
	}
	return disassembleBody{Instructions: out}, nil
}

type disassembleBody struct {
	Instructions []disassembledInstruction `json:"instructions"`
}

// disassembleMachine serves disassemble on a native program or firmware.
func (c *conn) disassembleMachine(ctx context.Context, d *launch.Debuggee, a godap.DisassembleArguments) (any, error) {
	pc, err := parseRef(a.MemoryReference, a.Offset)
	if err != nil {
		return nil, err
	}
	ins, err := d.DisassembleAround(ctx, pc, a.InstructionOffset, min(a.InstructionCount, 4096))
	if err != nil {
		return nil, err
	}
	out := make([]disassembledInstruction, 0, len(ins))
	lastLine, lastFile := -1, ""
	for _, in := range ins {
		if in.Text == "" {
			out = append(out, invalidInstruction(pcRef(in.PC)))
			continue
		}
		di := disassembledInstruction{DisassembledInstruction: godap.DisassembledInstruction{
			Address: pcRef(in.PC), Instruction: in.Text}}
		if loc, err := d.ResolvePC(in.PC); err == nil {
			di.Symbol = loc.Func
			if loc.File != "" && (loc.Line != lastLine || loc.File != lastFile) { // the first of its line
				di.Location, di.Line, di.Column = c.source(loc.File), loc.Line, loc.Col
				lastLine, lastFile = loc.Line, loc.File
			}
		}
		out = append(out, di)
	}
	return disassembleBody{Instructions: out}, nil
}
