package compile

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
)

// Disassemble writes every function's bytecode: pc, cycle cost, opcode and argument, with
// each statement's source line before its first instruction.
func Disassemble(w io.Writer, p *Program) error {
	lines := bytes.Split(p.Source, []byte("\n"))
	var buf bytes.Buffer
	for _, f := range p.Funcs {
		name := f.Name
		if name == "" {
			name = "<fn>"
		}
		fmt.Fprintf(&buf, "fn %s  (%s:%d, params %d, locals %d, stack %d, pcs %d..%d)\n",
			name, p.File, f.Pos.Line, f.NumParams, f.NumLocals, f.MaxStack, f.Entry, f.End-1)
		for pc := f.Entry; pc < f.End; pc++ {
			li := p.Lines[pc]
			if li.Stmt {
				src := ""
				if l := int(li.Line) - 1; l >= 0 && l < len(lines) {
					src = string(bytes.TrimSpace(lines[l]))
				}
				fmt.Fprintf(&buf, "  ; %d:%d %s  %s\n", li.Line, li.Col, li.Kind, src)
			}
			ins := p.Code[pc]
			op := Op(ins)
			if arg := p.operand(ins); arg != "" {
				fmt.Fprintf(&buf, "  %6d  %2dc  %-14s%s\n", pc, Cycles[op], op, arg)
			} else {
				fmt.Fprintf(&buf, "  %6d  %2dc  %s\n", pc, Cycles[op], op)
			}
		}
		buf.WriteByte('\n')
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// operand renders an instruction's argument with what it refers to.
func (p *Program) operand(ins uint32) string {
	arg := Arg(ins)
	switch op := Op(ins); op {
	case CONST:
		if arg < len(p.Consts) {
			switch c := p.Consts[arg].(type) {
			case string:
				return fmt.Sprintf("%d  ; %s", arg, strconv.Quote(c))
			default:
				return fmt.Sprintf("%d  ; %v", arg, c)
			}
		}
	case SMALLINT:
		return strconv.Itoa(SignedArg(ins))
	case LOADGLOBAL, STOREGLOBAL, DEFGLOBAL:
		if arg < len(p.Globals) {
			return fmt.Sprintf("%d  ; %s", arg, p.Globals[arg].Name)
		}
	case LOADBUILTIN:
		if arg < len(p.Builtins) {
			return fmt.Sprintf("%d  ; %s", arg, p.Builtins[arg])
		}
	case CLOSURE:
		if arg < len(p.Funcs) {
			return fmt.Sprintf("%d  ; fn %s", arg, p.Funcs[arg].Name)
		}
	case LOADLOCAL, STORELOCAL, LOADCELL, STORECELL, INITCELL:
		return strconv.Itoa(arg)
	case JUMP, LOOP, JUMPFALSE, JUMPFALSEKEEP, JUMPTRUEKEEP, NEXT:
		return fmt.Sprintf("-> %d", arg)
	case NOP, POP, NIL, TRUE, FALSE, DUP2, ADD, SUB, MUL, DIV, MOD, NEG, NOT, EQ, NE, LT, LE,
		GT, GE, RETURN, RETURNNIL, HALT, INDEX, SETINDEX, ITER, ITER2, RANGEITER, BREAK:
		return ""
	}
	return strconv.Itoa(arg)
}
