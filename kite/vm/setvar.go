package vm

// Changing variables of a stopped program (a debugger's `set var`).

// SetLocal sets the variable name visible in frame i (0: innermost): a local in scope at
// the frame's pc or a variable its function captured. Constants cannot be set.
func (vm *VM) SetLocal(i int, name string, v Value) error {
	j := len(vm.frames) - 1 - i
	if i < 0 || j < 0 {
		return Errorf("no frame %d", i)
	}
	fr := &vm.frames[j]
	locals := fr.cl.Fn.VisibleLocals(vm.framePC(j))
	for k := len(locals) - 1; k >= 0; k-- {
		l := locals[k]
		if l.Name != name {
			continue
		}
		if l.Const {
			return Errorf("%s is a constant", name)
		}
		slot := &vm.stack[fr.fp+l.Slot]
		switch {
		case slot.k == cellKind:
			(*Cell)(slot.p).V = v
		case l.Cell:
			return Errorf("%s is not yet defined here", name)
		default:
			*slot = v
		}
		return nil
	}
	for k, fv := range fr.cl.Fn.Free {
		if fv.Name == name {
			fr.cl.Free[k].V = v
			return nil
		}
	}
	return Errorf("no variable %s in frame %d", name, i)
}

// SetGlobal sets a defined global variable.
func (vm *VM) SetGlobal(name string, v Value) error {
	for k, g := range vm.Prog.Globals {
		if g.Name != name || g.Implicit {
			continue
		}
		if g.Const {
			return Errorf("%s is a constant", name)
		}
		if vm.globals[k].k == undefKind {
			return Errorf("%s is not yet defined", name)
		}
		vm.globals[k] = v
		return nil
	}
	return Errorf("no global variable %s", name)
}

// SetCaptured sets the variable name that the function value fn captured.
func SetCaptured(fn Value, name string, v Value) error {
	if fn.Kind() != FuncKind {
		return Errorf("a %s captures no variables", fn.TypeName())
	}
	cl := fn.Closure()
	for k, fv := range cl.Fn.Free {
		if fv.Name == name {
			cl.Free[k].V = v
			return nil
		}
	}
	return Errorf("%s captured no variable %s", funcLabel(cl), name)
}

func funcLabel(cl *Closure) string {
	if cl.Fn.Name == "" {
		return "the function"
	}
	return cl.Fn.Name
}

// SetElement sets x[key] = v for a list (an index in range) or a map (any valid key),
// as the program's own assignment does.
func (vm *VM) SetElement(x, key, v Value) error { return vm.setIndex(x, key, v) }

// Element is x[key] for a list or a map.
func (vm *VM) Element(x, key Value) (Value, error) {
	if x.k != ListKind && x.k != MapKind {
		return Nil, Errorf("cannot index a value of type %s", x.TypeName())
	}
	return vm.index(x, key)
}
