package engine

import (
	"fmt"
	"strings"
)

// VariableSetter is implemented by targets whose variables a debugger may change while
// they are stopped (DAP's setVariable and setExpression, MCP's set_variable, the terminal's
// `set var`). The new value is an expression in the target's own language, evaluated in
// frame.
type VariableSetter interface {
	// SetVariable sets the child called name of ref (a scope's or an expandable
	// variable's reference, as Scopes and Variables return them) or, when ref is 0, the
	// place the expression name denotes in frame (an lvalue: x, p.x, a[2], *ptr, m["k"]).
	// It returns the variable as it reads after the write (same name, new value).
	SetVariable(frame, ref int, name, valueExpr string) (Variable, error)
}

// SetVariable changes a variable of a stopped debuggee: the child name of the scope or
// variable reference ref, or (ref 0) the lvalue expression name in frame, to the value of
// valueExpr evaluated in frame. The answer is the variable as it now reads.
func (s *Session) SetVariable(frame, ref int, name, valueExpr string) (Variable, error) {
	vs, ok := s.t.(VariableSetter)
	if !ok {
		return Variable{}, fmt.Errorf("set variable: %w", ErrUnsupported)
	}
	name, valueExpr = strings.TrimSpace(name), strings.TrimSpace(valueExpr)
	if name == "" || valueExpr == "" {
		return Variable{}, fmt.Errorf("set variable: a name and a value are needed: %w", ErrInvalid)
	}
	if err := s.checkStopped("set a variable"); err != nil {
		return Variable{}, err
	}
	return vs.SetVariable(frame, ref, name, valueExpr)
}

// CanSetVariables reports whether the target can change variables (what front ends
// advertise).
func (s *Session) CanSetVariables() bool {
	_, ok := s.t.(VariableSetter)
	return ok
}
