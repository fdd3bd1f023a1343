package vm

// Places for watchpoints: where a variable or an element lives, found once in a stopped
// program and read again whenever the debugger checks it, and the instructions that may
// write or read it (the debugger traps them only while a watchpoint is armed).

import (
	"fmt"

	"github.com/polydbg/polydbg/kite/compile"
	"github.com/polydbg/polydbg/kite/syntax"
)

type placeKind uint8

const (
	placeGlobal  placeKind = iota + 1
	placeLocal             // a slot of one activation (its value, or the cell it holds)
	placeCell              // a captured variable: the cell itself
	placeElement           // container[key]
)

// A Place is where a watched variable or element lives. The zero Place is no place.
type Place struct {
	kind      placeKind
	index     int           // global index or local slot
	frame     int           // the activation's index from the outermost frame (placeLocal)
	fn        *compile.Func // the activation's function (placeLocal)
	local     compile.LocalVar
	cell      *Cell
	container Value
	key       Value
}

// Key identifies the place: two watches of one place have the same key.
func (p *Place) Key() string {
	switch p.kind {
	case placeGlobal:
		return fmt.Sprintf("g%d", p.index)
	case placeLocal:
		return fmt.Sprintf("l%d.%d", p.frame, p.index)
	case placeCell:
		return fmt.Sprintf("c%p", p.cell)
	case placeElement:
		return fmt.Sprintf("e%p[%s]", p.container.p, p.key.Repr())
	}
	return ""
}

// Local reports whether the place belongs to one activation of a function, and so ends
// when that activation returns.
func (p *Place) Local() bool { return p.kind == placeLocal }

// CanRead reports whether reads of the place can be watched: a variable's, not an
// element's (a read of an element is an index of any expression).
func (p *Place) CanRead() bool { return p.kind != placeElement }

// ResolvePlace finds where e lives in frame i (0: innermost) of a stopped program: a
// variable, or an element or field of a list or map (xs[i], m.key, m["k"]).
func (vm *VM) ResolvePlace(i int, e syntax.Expr) (Place, error) {
	switch x := e.(type) {
	case *syntax.ParenExpr:
		return vm.ResolvePlace(i, x.X)
	case *syntax.Ident:
		return vm.resolveVar(i, x.Name)
	case *syntax.IndexExpr:
		c, err := vm.Eval(x.X, i, EvalMode{Pure: true})
		if err != nil {
			return Place{}, err
		}
		k, err := vm.Eval(x.Index, i, EvalMode{Pure: true})
		if err != nil {
			return Place{}, err
		}
		return vm.elementPlace(c, k)
	case *syntax.DotExpr:
		c, err := vm.Eval(x.X, i, EvalMode{Pure: true})
		if err != nil {
			return Place{}, err
		}
		return vm.elementPlace(c, Str(x.Name.Name))
	}
	return Place{}, Errorf("%s is not a variable, an element or a field", syntax.ExprString(e))
}

func (vm *VM) elementPlace(c, k Value) (Place, error) {
	if _, err := vm.Element(c, k); err != nil {
		return Place{}, err
	}
	return Place{kind: placeElement, container: c, key: k}, nil
}

func (vm *VM) resolveVar(i int, name string) (Place, error) {
	if j := len(vm.frames) - 1 - i; i >= 0 && j >= 0 {
		fr := &vm.frames[j]
		locals := fr.cl.Fn.VisibleLocals(vm.framePC(j))
		for k := len(locals) - 1; k >= 0; k-- {
			if l := locals[k]; l.Name == name {
				if l.Cell && vm.stack[fr.fp+l.Slot].k != cellKind {
					return Place{}, Errorf("%s is not yet defined here", name)
				}
				return Place{kind: placeLocal, index: l.Slot, frame: j, fn: fr.cl.Fn, local: l}, nil
			}
		}
		for k, fv := range fr.cl.Fn.Free {
			if fv.Name == name {
				return Place{kind: placeCell, cell: fr.cl.Free[k]}, nil
			}
		}
	}
	for k, g := range vm.Prog.Globals {
		if g.Name == name && !g.Implicit {
			return Place{kind: placeGlobal, index: k}, nil
		}
	}
	return Place{}, Errorf("no variable %s", name)
}

// PlaceValue reads the place now. ok is false when it holds nothing: its activation has
// returned, the global is not yet defined, the element is gone.
func (vm *VM) PlaceValue(p *Place) (v Value, ok bool) {
	switch p.kind {
	case placeGlobal:
		v = vm.globals[p.index]
		return v, v.k != undefKind
	case placeLocal:
		if p.frame >= len(vm.frames) || vm.frames[p.frame].cl.Fn != p.fn {
			return Nil, false
		}
		v = vm.stack[vm.frames[p.frame].fp+p.index]
		if v.k == cellKind {
			v = (*Cell)(v.p).V
		} else if p.local.Cell {
			return Nil, false
		}
		return v, true
	case placeCell:
		return p.cell.V, true
	case placeElement:
		v, err := vm.Element(p.container, p.key)
		return v, err == nil
	}
	return Nil, false
}

// Ended reports whether the place's activation has returned or is returning: the
// innermost frame is at the place's frame and about to run a return.
func (vm *VM) Ended(p *Place, pc int) bool {
	if p.kind != placeLocal {
		return false
	}
	if p.frame >= len(vm.frames) || vm.frames[p.frame].cl.Fn != p.fn {
		return true
	}
	return p.frame == len(vm.frames)-1 && isReturn(compile.Op(vm.orig[pc]))
}

func isReturn(op compile.Opcode) bool { return op == compile.RETURN || op == compile.RETURNNIL }

// PlaceSites are the pcs a watchpoint on a place traps: After the instructions that may
// write it (the pc after each), At the ones that may read it, Ends the returns of its
// activation's function. A site may be a false alarm (another activation, another cell):
// the debugger compares the value, or asks ReadsPlace.
type PlaceSites struct{ After, At, Ends []int }

// Sites lists the place's sites in the program.
func (vm *VM) Sites(p *Place) PlaceSites {
	var s PlaceSites
	for pc := 0; pc < vm.progLen; pc++ {
		ins := vm.orig[pc]
		op, arg := compile.Op(ins), compile.Arg(ins)
		switch p.kind {
		case placeGlobal:
			switch {
			case (op == compile.STOREGLOBAL || op == compile.DEFGLOBAL) && arg == p.index:
				s.After = append(s.After, pc+1)
			case op == compile.LOADGLOBAL && arg == p.index:
				s.At = append(s.At, pc)
			}
		case placeLocal:
			in := pc >= p.fn.Entry && pc < p.fn.End
			mine := in && arg == p.index && pc+1 >= p.local.Start && pc < p.local.End
			switch {
			case !in:
				if p.local.Cell && (op == compile.STOREFREE) {
					s.After = append(s.After, pc+1)
				}
				if p.local.Cell && op == compile.LOADFREE {
					s.At = append(s.At, pc)
				}
			case isReturn(op):
				s.Ends = append(s.Ends, pc)
			case mine && (op == compile.STORELOCAL || op == compile.STORECELL || op == compile.INITCELL):
				s.After = append(s.After, pc+1)
			case mine && (op == compile.LOADLOCAL || op == compile.LOADCELL):
				s.At = append(s.At, pc)
			case p.local.Cell && op == compile.STOREFREE:
				s.After = append(s.After, pc+1)
			}
		case placeCell:
			switch op {
			case compile.STOREFREE, compile.STORECELL, compile.INITCELL:
				s.After = append(s.After, pc+1)
			case compile.LOADFREE, compile.LOADCELL:
				s.At = append(s.At, pc)
			}
		case placeElement:
			// An element changes by an assignment or in a builtin (push, sort, ...).
			if op == compile.SETINDEX || op == compile.CALL {
				s.After = append(s.After, pc+1)
			}
		}
	}
	return s
}

// ReadsPlace reports whether the instruction at pc, about to run in the innermost frame,
// reads the place (a site of Sites(p).At).
func (vm *VM) ReadsPlace(p *Place, pc int) bool {
	if len(vm.frames) == 0 || pc < 0 || pc >= vm.progLen {
		return false
	}
	j := len(vm.frames) - 1
	fr := &vm.frames[j]
	ins := vm.orig[pc]
	op, arg := compile.Op(ins), compile.Arg(ins)
	var cell *Cell
	switch op {
	case compile.LOADGLOBAL:
		return p.kind == placeGlobal && arg == p.index
	case compile.LOADLOCAL:
		return p.kind == placeLocal && j == p.frame && arg == p.index
	case compile.LOADCELL:
		if v := vm.stack[fr.fp+arg]; v.k == cellKind {
			cell = (*Cell)(v.p)
		}
	case compile.LOADFREE:
		if arg < len(fr.cl.Free) {
			cell = fr.cl.Free[arg]
		}
	}
	if cell == nil {
		return false
	}
	switch p.kind {
	case placeCell:
		return cell == p.cell
	case placeLocal:
		if p.frame < len(vm.frames) {
			v := vm.stack[vm.frames[p.frame].fp+p.index]
			return v.k == cellKind && (*Cell)(v.p) == cell
		}
	}
	return false
}

// Same reports whether a and b are the same value for a watchpoint: equal scalars or
// strings, or the very same list, map or function. A list changed in place is the same
// value (its variable was not written).
func Same(a, b Value) bool {
	if a.k != b.k {
		return false
	}
	if a.k == StringKind {
		return a.Str() == b.Str()
	}
	return a.n == b.n && a.p == b.p
}
