package gdbremote

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// GDB agent expression bytecodes (GDB manual, "Agent Expressions").
const (
	axAdd          = 0x02
	axLogNot       = 0x0e
	axBitAnd       = 0x0f
	axBitOr        = 0x10
	axEqual        = 0x13
	axLessSigned   = 0x14
	axLessUnsigned = 0x15
	axExt          = 0x16
	axRef8         = 0x17
	axRef16        = 0x18
	axRef32        = 0x19
	axRef64        = 0x1a
	axConst8       = 0x22
	axConst16      = 0x23
	axConst32      = 0x24
	axConst64      = 0x25
	axReg          = 0x26
	axEnd          = 0x27
	axSwap         = 0x2b
)

// ErrNotCompilable means a condition is outside what CompileCondition handles; the caller
// evaluates it on the host instead.
var ErrNotCompilable = errors.New("gdbremote: condition cannot be evaluated by the stub")

// AgentVar tells the compiler where a variable of a condition lives at the breakpoint.
type AgentVar struct {
	// InReg: the value is register Reg itself (a stub register number).
	InReg bool
	// Otherwise the value is in memory at Offset, plus register Reg's value when Reg >= 0.
	Reg    int
	Offset int64
	Size   int // 1, 2, 4 or 8 bytes
	Signed bool
}

// AgentResolver resolves a variable name of a condition for the breakpoint's address.
type AgentResolver func(name string) (AgentVar, error)

// CompileCondition compiles a simple condition into an agent expression: comparisons
// (== != < <= > >=) of a variable with a constant or another variable, a bare variable
// (true when non-zero), combined with && / and, || / or, ! / not and parentheses. Anything
// else returns an error wrapping ErrNotCompilable.
func CompileCondition(cond string, resolve AgentResolver) ([]byte, error) {
	n, err := parseCond(cond) // the grammar the host evaluates
	if err != nil {
		if errors.Is(err, ErrNotCompilable) {
			return nil, err
		}
		return nil, fmt.Errorf("%w: %v", ErrNotCompilable, err)
	}
	c := &agentCompiler{resolve: resolve}
	if err := c.truth(n); err != nil {
		return nil, err
	}
	return append(c.out, axEnd), nil
}

func lexCond(s string) ([]string, error) {
	var toks []string
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			i++
		case strings.HasPrefix(s[i:], "&&") || strings.HasPrefix(s[i:], "||") ||
			strings.HasPrefix(s[i:], "==") || strings.HasPrefix(s[i:], "!=") ||
			strings.HasPrefix(s[i:], "<=") || strings.HasPrefix(s[i:], ">="):
			toks = append(toks, s[i:i+2])
			i += 2
		case strings.ContainsRune("<>()!-", rune(c)):
			toks = append(toks, s[i:i+1])
			i++
		case isIdentByte(c):
			j := i
			for j < len(s) && (s[j] == '.' || isIdentByte(s[j])) {
				j++
			}
			toks = append(toks, s[i:j])
			i = j
		default:
			return nil, fmt.Errorf("%w: character %q", ErrNotCompilable, c)
		}
	}
	return toks, nil
}

// agentCompiler turns a parsed condition into agent bytecode.
type agentCompiler struct {
	out     []byte
	resolve AgentResolver
}

// truth compiles n so that it leaves 0 or 1 on the stack.
func (p *agentCompiler) truth(n *condNode) error {
	switch n.op {
	case "||", "&&":
		if err := p.truth(n.left); err != nil {
			return err
		}
		if err := p.truth(n.right); err != nil {
			return err
		}
		if n.op == "||" {
			p.out = append(p.out, axBitOr)
		} else {
			p.out = append(p.out, axBitAnd)
		}
		return nil
	case "!":
		if err := p.truth(n.left); err != nil {
			return err
		}
		p.out = append(p.out, axLogNot)
		return nil
	case "":
		// a bare operand: true when non-zero
		if _, err := p.operand(n.operand); err != nil {
			return err
		}
		p.out = append(p.out, axLogNot, axLogNot)
		return nil
	}
	if n.left.op != "" || n.right.op != "" {
		return fmt.Errorf("%w: comparison of conditions", ErrNotCompilable)
	}
	ls, err := p.operand(n.left.operand)
	if err != nil {
		return err
	}
	rs, err := p.operand(n.right.operand)
	if err != nil {
		return err
	}
	less := byte(axLessSigned)
	if !ls || !rs {
		less = axLessUnsigned
	}
	switch n.op {
	case "==":
		p.out = append(p.out, axEqual)
	case "!=":
		p.out = append(p.out, axEqual, axLogNot)
	case "<":
		p.out = append(p.out, less)
	case ">":
		p.out = append(p.out, axSwap, less)
	case "<=":
		p.out = append(p.out, axSwap, less, axLogNot)
	case ">=":
		p.out = append(p.out, less, axLogNot)
	default:
		return fmt.Errorf("%w: operator %q", ErrNotCompilable, n.op)
	}
	return nil
}

// operand pushes a constant or a variable and reports whether it is signed.
func (p *agentCompiler) operand(t string) (signed bool, err error) {
	if num := strings.TrimPrefix(t, "-"); num != "" && num[0] >= '0' && num[0] <= '9' {
		v, err := strconv.ParseInt(t, 0, 64)
		if err != nil {
			return false, fmt.Errorf("%w: number %q", ErrNotCompilable, t)
		}
		p.pushConst(uint64(v))
		return true, nil
	}
	if t == "" || !(t[0] == '_' || t[0] >= 'a' && t[0] <= 'z' || t[0] >= 'A' && t[0] <= 'Z') {
		return false, fmt.Errorf("%w: operand %q", ErrNotCompilable, t)
	}
	switch t {
	case "and", "or", "not":
		return false, fmt.Errorf("%w: operand %q", ErrNotCompilable, t)
	}
	if p.resolve == nil {
		return false, fmt.Errorf("%w: no variables here", ErrNotCompilable)
	}
	v, err := p.resolve(t)
	if err != nil {
		return false, fmt.Errorf("%w: %s: %v", ErrNotCompilable, t, err)
	}
	if err := p.pushVar(v); err != nil {
		return false, err
	}
	return v.Signed, nil
}

func (p *agentCompiler) pushConst(v uint64) {
	switch {
	case v < 1<<8:
		p.out = append(p.out, axConst8, byte(v))
	case v < 1<<16:
		p.out = binary.BigEndian.AppendUint16(append(p.out, axConst16), uint16(v))
	case v < 1<<32:
		p.out = binary.BigEndian.AppendUint32(append(p.out, axConst32), uint32(v))
	default:
		p.out = binary.BigEndian.AppendUint64(append(p.out, axConst64), v)
	}
}

func (p *agentCompiler) pushVar(v AgentVar) error {
	var ref byte
	switch v.Size {
	case 1:
		ref = axRef8
	case 2:
		ref = axRef16
	case 4:
		ref = axRef32
	case 8:
		ref = axRef64
	default:
		return fmt.Errorf("%w: variable of %d bytes", ErrNotCompilable, v.Size)
	}
	if v.InReg {
		p.out = binary.BigEndian.AppendUint16(append(p.out, axReg), uint16(v.Reg))
	} else {
		if v.Reg >= 0 {
			p.out = binary.BigEndian.AppendUint16(append(p.out, axReg), uint16(v.Reg))
			if v.Offset != 0 {
				p.pushConst(uint64(v.Offset))
				p.out = append(p.out, axAdd)
			}
		} else {
			p.pushConst(uint64(v.Offset))
		}
		p.out = append(p.out, ref)
	}
	if v.Signed && v.Size < 8 {
		p.out = append(p.out, axExt, byte(8*v.Size))
	}
	return nil
}
