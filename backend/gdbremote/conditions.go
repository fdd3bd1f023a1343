package gdbremote

// Breakpoint conditions: parsed as comparisons joined by && and || (or as C arithmetic),
// their names checked in the breakpoint's scope when set, evaluated on the host at each
// hit, or compiled to the stub's agent bytecode where it can evaluate them itself.

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/engine"
)

// condNode is a parsed condition.
type condNode struct {
	op          string // "||", "&&", "!", a comparison, or "" for an operand
	left, right *condNode
	operand     string
}

func parseCond(s string) (*condNode, error) {
	toks, err := lexCond(s)
	if err != nil {
		return nil, err
	}
	p := &nodeParser{toks: toks}
	n, err := p.or()
	if err != nil {
		return nil, err
	}
	if p.pos != len(toks) {
		return nil, fmt.Errorf("unexpected %q in condition", toks[p.pos])
	}
	return n, nil
}

type nodeParser struct {
	toks []string
	pos  int
}

func (p *nodeParser) peek() string {
	if p.pos < len(p.toks) {
		return p.toks[p.pos]
	}
	return ""
}

func (p *nodeParser) or() (*condNode, error) {
	l, err := p.and()
	for err == nil && (p.peek() == "||" || p.peek() == "or") {
		p.pos++
		var r *condNode
		if r, err = p.and(); err == nil {
			l = &condNode{op: "||", left: l, right: r}
		}
	}
	return l, err
}

func (p *nodeParser) and() (*condNode, error) {
	l, err := p.unary()
	for err == nil && (p.peek() == "&&" || p.peek() == "and") {
		p.pos++
		var r *condNode
		if r, err = p.unary(); err == nil {
			l = &condNode{op: "&&", left: l, right: r}
		}
	}
	return l, err
}

func (p *nodeParser) unary() (*condNode, error) {
	switch p.peek() {
	case "!", "not":
		p.pos++
		n, err := p.unary()
		return &condNode{op: "!", left: n}, err
	case "(":
		p.pos++
		n, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.peek() != ")" {
			return nil, fmt.Errorf("missing ) in condition")
		}
		p.pos++
		return n, nil
	}
	l, err := p.operand()
	if err != nil {
		return nil, err
	}
	switch op := p.peek(); op {
	case "==", "!=", "<", "<=", ">", ">=":
		p.pos++
		r, err := p.operand()
		return &condNode{op: op, left: l, right: r}, err
	}
	return l, nil
}

func (p *nodeParser) operand() (*condNode, error) {
	t := p.peek()
	if t == "" {
		return nil, fmt.Errorf("condition ends early")
	}
	if t == "-" {
		p.pos++
		n := p.peek()
		if n == "" || n[0] < '0' || n[0] > '9' {
			return nil, fmt.Errorf("bad negative number")
		}
		p.pos++
		return &condNode{operand: "-" + n}, nil
	}
	switch t {
	case "(", ")", "&&", "||", "==", "!=", "<", "<=", ">", ">=", "!":
		return nil, fmt.Errorf("unexpected %q in condition", t)
	}
	p.pos++
	return &condNode{operand: t}, nil
}

func (e *evaluator) num(n *condNode) (int64, error) {
	if n.op != "" {
		b, err := e.eval(n)
		if b {
			return 1, err
		}
		return 0, err
	}
	if v, err := strconv.ParseInt(n.operand, 0, 64); err == nil {
		return v, nil
	}
	v, err := e.value(n.operand)
	if err != nil {
		return 0, err
	}
	if v.Referred().Kind == "float" {
		return 0, errNotInteger
	}
	return number(v)
}

// errNotInteger stops the integer evaluation of a condition (num) at a floating point
// operand, which C's arithmetic evaluates instead.
var errNotInteger = errors.New("a floating point operand")

func (e *evaluator) eval(n *condNode) (bool, error) {
	switch n.op {
	case "":
		v, err := e.num(n)
		return v != 0, err
	case "!":
		b, err := e.eval(n.left)
		return !b, err
	case "&&":
		b, err := e.eval(n.left)
		if err != nil || !b {
			return false, err
		}
		return e.eval(n.right)
	case "||":
		b, err := e.eval(n.left)
		if err != nil || b {
			return b, err
		}
		return e.eval(n.right)
	}
	l, err := e.num(n.left)
	if err != nil {
		return false, err
	}
	r, err := e.num(n.right)
	if err != nil {
		return false, err
	}
	if c, ok := compare(n.op, l, r); ok {
		return c, nil
	}
	return false, fmt.Errorf("unknown comparison %s", n.op)
}

// hostCond is a compiled condition: evaluated on the host in frame 0, and, when simple
// enough, also compiled to an agent expression the stub can evaluate (SetTrapConditions).
type hostCond struct {
	t     *Target
	expr  string
	node  *condNode // nil: a value expression (for log messages), or C arithmetic (arith)
	arith bool      // a C expression with arithmetic (x % 2 == 1): evaluated on the host only
	agent []byte
}

func (c *hostCond) String() (string, error) {
	fr, err := c.t.frame(0)
	if err != nil {
		return "", err
	}
	ev := &evaluator{t: c.t, fr: fr, pure: true} // a condition or logpoint never runs the program
	if v, err := ev.value(strings.TrimSpace(c.expr)); err == nil {
		return v.Text, nil
	}
	if c.node == nil { // a value with arithmetic ("{count * 2}" in a log message)
		v, err := ev.arith(strings.TrimSpace(c.expr))
		return v.Text, err
	}
	b, err := ev.eval(c.node)
	return strconv.FormatBool(b), err
}

func (c *hostCond) Eval() (bool, error) {
	if c.node == nil && !c.arith {
		return false, fmt.Errorf("%q is not a condition", c.expr)
	}
	fr, err := c.t.frame(0)
	if err != nil {
		return false, err
	}
	ev := &evaluator{t: c.t, fr: fr, pure: true} // a condition or logpoint never runs the program
	if c.arith {
		return ev.truth(c.expr)
	}
	b, err := ev.eval(c.node)
	if errors.Is(err, errNotInteger) { // a double's a == 1: C's arithmetic, which compares 1.5 with 1.0
		return ev.truth(c.expr)
	}
	return b, err
}

// CanRunOnStub reports whether the condition compiled to an agent expression.
func (c *hostCond) CanRunOnStub() bool { return c.agent != nil }

// CompileCondition implements engine.Target.
func (t *Target) CompileCondition(loc engine.Location, expr string) (engine.Condition, error) {
	c := &hostCond{t: t, expr: expr}
	n, err := parseCond(expr)
	switch {
	case err == nil:
		c.node = n
	case checkArith(expr) == nil:
		c.arith = true
	case strings.ContainsAny(expr, "=<>&|!%+-*/"):
		return nil, checkArith(expr)
	}
	if err := t.checkNames(loc, expr); err != nil {
		return nil, err
	}
	t.mu.Lock()
	oneSite := len(t.sites[loc.PC]) == 0 // the stub's bytecode reads the variables of one place only
	t.mu.Unlock()
	if loc.HasPC && c.node != nil && oneSite {
		if code, err := CompileCondition(expr, t.agentResolver(loc.PC)); err == nil {
			c.agent = code
		}
	}
	return c, nil
}

// checkNames refuses a condition at loc that names what is nowhere in its scope, as gdb
// refuses it when it is set (No symbol "nosuch" in current context.), in C code: each name
// that is not a member, a call, a type or a scoped name must be a variable there, an
// enumerator, a function or a symbol of the program.
func (t *Target) checkNames(loc engine.Location, expr string) error {
	if !loc.HasPC || t.sym.CXXAt(loc.PC) || t.sym.FuncAt(loc.PC) == nil {
		return nil
	}
	toks, err := lexArith(expr)
	if err != nil {
		return nil
	}
	for i, tok := range toks {
		switch {
		case !isIdent(tok) || strings.Contains(tok, "::") || isTypeKeyword(tok):
			continue
		case i > 0 && (toks[i-1] == "." || toks[i-1] == "->"), i+1 < len(toks) && toks[i+1] == "(":
			continue // a member's name, a call's function
		}
		if _, err := t.sym.LookupVar(loc.PC, tok); err == nil {
			continue
		}
		if _, _, ok := t.sym.Enumerator(tok); ok || t.sym.IsTypeName(tok) {
			continue
		}
		if _, ok := t.sym.FuncByName(tok); ok {
			continue
		}
		if _, ok := t.functionSymbol(tok); ok {
			continue
		}
		if _, ok := t.dataSymbol(tok); ok {
			continue
		}
		return fmt.Errorf("No symbol %q in current context.", tok)
	}
	return nil
}

// agentResolver locates variables for agent expressions at pc.
func (t *Target) agentResolver(pc uint64) AgentResolver {
	return func(name string) (AgentVar, error) {
		v, err := t.sym.LookupVar(pc, name)
		if err != nil {
			return AgentVar{}, err
		}
		isInt, signed := elfsym.IntKind(v.Type)
		if !isInt {
			return AgentVar{}, fmt.Errorf("%s is not an integer", name)
		}
		sl, err := t.sym.StaticLocation(v, pc)
		if err != nil {
			return AgentVar{}, err
		}
		av := AgentVar{InReg: sl.InReg, Reg: -1, Offset: sl.Offset, Size: v.Size(), Signed: signed}
		if sl.Reg >= 0 {
			r, ok := t.desc.Reg(t.sym.Arch.RegName(sl.Reg))
			if !ok {
				return AgentVar{}, fmt.Errorf("register %d of %s is not in the target description", sl.Reg, name)
			}
			av.Reg = r.Num
		}
		return av, nil
	}
}
