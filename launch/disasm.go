package launch

import (
	"bufio"
	"bytes"
	"context"
	"debug/elf"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/backend/gdbremote"
	"github.com/polydbg/polydbg/backend/kitevm"
	"github.com/polydbg/polydbg/kite/compile"
)

// Instruction is one disassembled instruction.
type Instruction struct {
	PC   uint64
	Text string // mnemonic and operands
	Size int    // bytes (machine code of a function, DisassembleFunction); 0 when not known
}

// IntelSyntax makes the disassembly of x86 code under ctx Intel's syntax (gdb's set
// disassembly-flavor intel) instead of AT&T's.
func IntelSyntax(ctx context.Context) context.Context {
	return context.WithValue(ctx, intelSyntaxKey{}, true)
}

type intelSyntaxKey struct{}

// Disassemble returns up to count instructions from pc: the Kite VM's bytecode for Kite
// programs, the ELF's machine code (through objdump, arm-none-eabi-objdump for firmware)
// for native and firmware targets. The code comes from the program file, as loaded.
func (d *Debuggee) Disassemble(ctx context.Context, pc uint64, count int) ([]Instruction, error) {
	if count <= 0 {
		return nil, errors.New("disassemble: count must be positive")
	}
	if t, ok := d.Target().(*kitevm.Target); ok {
		return kiteInstructions(t.Program(), pc, count)
	}
	elf, tool := d.Spec.ELF, "arm-none-eabi-objdump"
	if d.Spec.Kind == Native {
		tool = "objdump"
		if elf == "" {
			elf = d.Spec.Program
		}
	}
	if elf == "" {
		return nil, errors.New("disassemble: no program file with machine code for this kind of target")
	}
	var bias uint64
	if t, ok := d.Target().(*gdbremote.Target); ok {
		sym := t.Symbols()
		if sym.LoadedAddress(pc) == pc { // (before the program runs, its addresses are the file's)
			bias = sym.Bias
		}
		if img := sym.ImageAt(pc); d.Spec.Kind == Native && img != sym && img.Path != "" {
			elf, bias = img.Path, img.Bias // a loaded library's code, from its file
		}
	} else {
		bias = d.loadBias(elf)
	}
	// Instructions are at most 4 bytes on Thumb and 15 on x86: read enough, keep count.
	span := uint64(count) * 16
	args := []string{"-d", "--no-show-raw-insn", "-z"}
	if intel, _ := ctx.Value(intelSyntaxKey{}).(bool); intel && d.Spec.Kind == Native {
		args = append(args, "-M", "intel")
	}
	args = append(args, fmt.Sprintf("--start-address=%#x", pc-bias), fmt.Sprintf("--stop-address=%#x", pc-bias+span), elf)
	cmd := exec.CommandContext(ctx, tool, args...)
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("disassemble: %s: %w", tool, err)
	}
	ins := objdumpInstructions(out, count)
	var name func(uint64) (string, bool)
	if t, ok := d.Target().(*gdbremote.Target); ok {
		name = t.Symbols().AsmSymbolAt // (count.0, as gdb's disassembly names it)
	}
	for i := range ins {
		ins[i].PC += bias
		ins[i].Text = runtimeTargets(ins[i].Text, bias, name)
	}
	return ins, nil
}

// objdumpTarget is an address objdump names with its symbol: a branch's target ("call 1030
// <puts@plt>") or, after "#", what a rip-relative operand points to.
var objdumpTarget = regexp.MustCompile(`\b([0-9a-f]+) <([^>]+)>`)

// runtimeTargets writes the addresses objdump gives in the file's terms as the running
// program has them, in hex, named as gdb names them: by the function or object that holds
// them (name), a PLT entry by objdump's name, anything else bare ("call 0x555555555030
// <puts@plt>", "# 0x555555558020 <vals>").
func runtimeTargets(text string, bias uint64, name func(uint64) (string, bool)) string {
	return objdumpTarget.ReplaceAllStringFunc(text, func(m string) string {
		sub := objdumpTarget.FindStringSubmatch(m)
		a, err := strconv.ParseUint(sub[1], 16, 64)
		if err != nil {
			return m
		}
		a += bias
		if name != nil {
			if n, ok := name(a); ok {
				return fmt.Sprintf("%#x <%s>", a, n)
			}
		}
		if strings.HasSuffix(sub[2], "@plt") {
			return fmt.Sprintf("%#x <%s>", a, sub[2])
		}
		return fmt.Sprintf("%#x", a)
	})
}

// loadBias is where a position-independent executable was loaded: the distance between
// main's address in the running program and in the file (0 for firmware and fixed ones).
func (d *Debuggee) loadBias(file string) uint64 {
	f, err := elf.Open(file)
	if err != nil {
		return 0
	}
	defer f.Close()
	if f.Type != elf.ET_DYN {
		return 0
	}
	syms, _ := f.Symbols()
	for _, s := range syms {
		if s.Name == "main" && elf.ST_TYPE(s.Info) == elf.STT_FUNC {
			if loc, err := d.Target().ResolveFunction("main"); err == nil && loc.PC >= s.Value {
				// The breakpoint address of main is past its prologue: align on the symbol.
				return (loc.PC - s.Value) &^ 0xfff
			}
		}
	}
	return 0
}

// objdumpInstructions reads objdump's "  addr:\tinsn" lines.
func objdumpInstructions(out []byte, count int) []Instruction {
	var ins []Instruction
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() && len(ins) < count {
		addr, text, ok := strings.Cut(sc.Text(), ":\t")
		if !ok {
			continue
		}
		pc, err := strconv.ParseUint(strings.TrimSpace(addr), 16, 64)
		if err != nil {
			continue
		}
		ins = append(ins, Instruction{PC: pc, Text: strings.TrimSpace(text)}) // objdump's spacing, as gdb shows it
	}
	return ins
}

// kiteInstructions reads the VM's disassembly ("  pc  cycles  op  arg").
func kiteInstructions(p *compile.Program, pc uint64, count int) ([]Instruction, error) {
	var buf bytes.Buffer
	if err := compile.Disassemble(&buf, p); err != nil {
		return nil, err
	}
	var ins []Instruction
	sc := bufio.NewScanner(&buf)
	for sc.Scan() && len(ins) < count {
		f := strings.Fields(sc.Text())
		if len(f) < 3 {
			continue
		}
		n, err := strconv.ParseUint(f[0], 10, 64)
		if err != nil || n < pc {
			continue
		}
		ins = append(ins, Instruction{PC: n, Text: strings.Join(f[2:], " ")})
	}
	return ins, nil
}
