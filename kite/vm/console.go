package vm

// Read-only accessors a console debugger needs (protocol/prometeu's getState).

// OperandTop returns the value on top of the innermost frame's operand stack (above its
// local variables); ok is false when that stack is empty or no frame is active. Call it
// while the program is suspended (in a hook).
func (vm *VM) OperandTop() (v Value, ok bool) {
	if len(vm.frames) == 0 {
		return Nil, false
	}
	fr := &vm.frames[len(vm.frames)-1]
	if vm.sp <= fr.fp+fr.cl.Fn.NumLocals || vm.sp > len(vm.stack) {
		return Nil, false
	}
	v = vm.stack[vm.sp-1]
	if v.k == iterKind || v.k == cellKind || v.k == undefKind {
		return Nil, false
	}
	return v, true
}
