package console

import (
	"fmt"
	"strings"
)

// SourceLine is where one instruction of the cartridge's program comes from.
type SourceLine struct {
	PC       uint64
	File     string // the program's file, as loaded
	Line     int
	Col      int
	Function string // the enclosing function's name ("" at top level or in a lambda)
	Text     string // the source line, without its line ending
}

// SourceAt describes the instruction at pc: its place in the source, its function and the
// text of its line (the answer of a debugger's "source of this pc").
func (c *Console) SourceAt(pc uint64) (SourceLine, error) {
	p := c.cart.Program
	if pc >= uint64(len(p.Code)) {
		return SourceLine{}, fmt.Errorf("pc %d is outside the program (0..%d)", pc, len(p.Code)-1)
	}
	li := p.Lines[pc]
	l := SourceLine{PC: pc, File: p.File, Line: int(li.Line), Col: int(li.Col)}
	if lines := strings.Split(string(p.Source), "\n"); l.Line >= 1 && l.Line <= len(lines) {
		l.Text = strings.TrimRight(lines[l.Line-1], "\r")
	}
	if f := p.FuncAt(int(pc)); f != nil {
		l.Function = f.Name
	}
	return l, nil
}
