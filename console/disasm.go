package console

import (
	"bufio"
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/polydbg/polydbg/kite/compile"
)

// Instruction is one disassembled instruction.
type Instruction struct {
	PC      int    `json:"pc"`
	Op      string `json:"op"`
	Operand string `json:"operand,omitempty"`
	Cycles  int    `json:"cycles"`
	Line    int    `json:"line"`
	Func    string `json:"function,omitempty"`
	Stmt    bool   `json:"stmt,omitempty"` // the instruction begins a statement
}

var disasmCache sync.Map // *compile.Program -> map[int]string (operand text by pc)

var insRe = regexp.MustCompile(`^\s+(\d+)\s+\d+c\s+\S+\s*(.*)$`)

// operands renders every instruction's operand the way `polydbg disasm` does (it reads
// compile.Disassemble's listing, the program's one printable form).
func operands(p *compile.Program) map[int]string {
	if m, ok := disasmCache.Load(p); ok {
		return m.(map[int]string)
	}
	var buf bytes.Buffer
	_ = compile.Disassemble(&buf, p)
	m := make(map[int]string, len(p.Code))
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if g := insRe.FindStringSubmatch(sc.Text()); g != nil {
			pc, _ := strconv.Atoi(g[1])
			m[pc] = strings.TrimSpace(g[2])
		}
	}
	disasmCache.Store(p, m)
	return m
}

func disassemble(p *compile.Program, pc, count int) []Instruction {
	if pc < 0 || count <= 0 {
		return nil
	}
	ops := operands(p)
	var out []Instruction
	for ; pc < len(p.Code) && len(out) < count; pc++ {
		ins := p.Code[pc]
		op := compile.Op(ins)
		in := Instruction{PC: pc, Op: op.String(), Operand: ops[pc], Cycles: int(compile.Cycles[op]),
			Line: int(p.Lines[pc].Line), Stmt: p.Lines[pc].Stmt}
		if f := p.FuncAt(pc); f != nil {
			in.Func = f.Name
			if in.Func == "" {
				in.Func = "<fn>"
			}
		}
		out = append(out, in)
	}
	return out
}
