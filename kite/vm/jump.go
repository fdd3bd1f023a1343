package vm

import "fmt"

// Jump moves the innermost frame to pc, an instruction of its own function, keeping depth
// values of its operand stack above its locals (the iterators of the for loops around pc)
// and dropping the rest. It is called while the VM is suspended in a trap (Hook.Trap):
// when the hook returns, execution goes on at pc (a trap set there does not fire first).
// The caller checks that pc begins a statement whose loops are the ones the frame is in.
func (vm *VM) Jump(pc, depth int) error {
	if len(vm.frames) == 0 {
		return fmt.Errorf("jump: no frame")
	}
	fr := &vm.frames[len(vm.frames)-1]
	if fn := fr.cl.Fn; pc < fn.Entry || pc >= fn.End {
		return fmt.Errorf("jump: pc %d is outside %s (%d..%d)", pc, fnDisplayName(fn.Name), fn.Entry, fn.End-1)
	}
	base := fr.fp + fr.cl.Fn.NumLocals
	if depth < 0 || vm.sp < base+depth {
		return fmt.Errorf("jump: the frame holds %d values, the target needs %d", vm.sp-base, depth)
	}
	for i := base + depth; i < vm.sp; i++ {
		vm.stack[i] = Nil
	}
	vm.sp = base + depth
	fr.pc = pc
	vm.jumped = true
	return nil
}
