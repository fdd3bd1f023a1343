package launch

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/polydbg/polydbg/backend/gdbremote"
	"github.com/polydbg/polydbg/backend/kitevm"
)

// maxAround bounds the instructions DisassembleAround decodes (from the start of the
// function to the window's end).
const maxAround = 8192

// CanDisassembleMachineCode says whether the machine code of this debuggee (a native
// program or firmware behind a GDB stub) can be disassembled: its objdump is installed.
func (d *Debuggee) CanDisassembleMachineCode() bool {
	if _, ok := d.Target().(*gdbremote.Target); !ok {
		return false
	}
	_, err := exec.LookPath(d.objdump())
	return err == nil
}

func (d *Debuggee) objdump() string {
	if d.Spec.Kind == Native {
		return "objdump"
	}
	return "arm-none-eabi-objdump"
}

// DisassembleAround returns count instructions of a native program's or firmware's machine
// code, the first offset instructions away from the one at pc (before it when negative),
// as a debugger's disassembly view asks for them. Variable-length code (x86) cannot be
// decoded backwards, so the function holding pc is decoded from its start. A place with no
// instruction to show (before the function, past the code) holds an Instruction with no
// Text and an address of its own.
func (d *Debuggee) DisassembleAround(ctx context.Context, pc uint64, offset, count int) ([]Instruction, error) {
	t, ok := d.Target().(*gdbremote.Target)
	if !ok {
		return nil, errors.New("disassemble: no machine code for this kind of target")
	}
	if count <= 0 {
		return nil, nil
	}
	sym := t.Symbols()
	start := pc
	if fn := sym.FuncAt(pc); fn != nil && offset < 0 {
		start = fn.Start()
	}
	n := min(int(pc-start)+max(offset+count, 1)+1, maxAround)
	ins, err := d.Disassemble(ctx, start, n)
	if err != nil {
		return nil, err
	}
	at := len(ins)
	for i, in := range ins {
		if in.PC >= pc {
			at = i
			break
		}
	}
	out := make([]Instruction, count)
	for k := range out {
		j := at + offset + k
		switch {
		case j >= 0 && j < len(ins):
			out[k] = ins[j]
		case j < 0 && len(ins) > 0: // before the function: one address per missing one
			out[k].PC = ins[0].PC - uint64(-j)
		case len(ins) > 0:
			out[k].PC = ins[len(ins)-1].PC + uint64(j-len(ins)+1)
		default:
			out[k].PC = pc + uint64(j-at)
		}
	}
	return out, nil
}

// DisassembleFunction returns the instructions of the function that holds pc, with its
// name: the Kite VM's bytecode of a Kite function, the machine code of a native or firmware
// one (gdb's disassemble without arguments).
func (d *Debuggee) DisassembleFunction(ctx context.Context, pc uint64) (string, []Instruction, error) {
	switch t := d.Target().(type) {
	case *kitevm.Target:
		fn := t.Program().FuncAt(int(pc))
		if fn == nil {
			return "", nil, fmt.Errorf("No function contains specified address.")
		}
		ins, err := kiteInstructions(t.Program(), uint64(fn.Entry), fn.End-fn.Entry)
		return kiteFuncName(fn.Name), ins, err
	case *gdbremote.Target:
		sym := t.Symbols()
		fn := sym.FuncAt(pc)
		if fn == nil {
			return "", nil, fmt.Errorf("No function contains specified address.")
		}
		ins, err := d.Disassemble(ctx, fn.Start(), int(fn.High-fn.Low))
		var in []Instruction
		for k, i := range ins {
			if i.PC >= fn.End() {
				break
			}
			i.Size = int(fn.End() - i.PC) // the last one: up to the function's end
			if k+1 < len(ins) && ins[k+1].PC < fn.End() {
				i.Size = int(ins[k+1].PC - i.PC)
			}
			in = append(in, i)
		}
		name := fn.Name
		if s, ok := sym.SymbolAt(fn.Start()); ok && fn.Name != s && !strings.Contains(s, "+") {
			name = s // as gdb names it, by its symbol: C++'s mangled name, main()
		}
		return name, in, err
	}
	return "", nil, errors.New("disassemble: no code to show for this kind of target")
}

func kiteFuncName(name string) string {
	if name == "" {
		return "<fn>"
	}
	return name
}
