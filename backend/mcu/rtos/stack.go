package rtos

// The size of a task's stack. FreeRTOS does not record it: the TCB has pxStack (the lowest
// slot) and, with configRECORD_STACK_HIGH_ADDRESS, pxEndOfStack, which prvInitialiseNewTask
// sets to the last slot &pxStack[depth-1] aligned down to portBYTE_ALIGNMENT (8). With
// 4-byte slots an 8-aligned pxEndOfStack is therefore either the last slot (an odd depth
// on an 8-aligned stack) or the one below it (an even depth). Which one is told, in order:
// by the data object holding a static stack (xTaskCreateStatic's buffer) when it ends at
// one of the two; else by the slot above pxEndOfStack, which is not the stack's when
// another task's stack starts there, and else is part of the stack only if it still holds
// the fill byte (the kernel fills the whole stack and no port writes above
// pxEndOfStack, where the initial frame starts); else, memory being unreadable, by the
// alignment of pxStack (even depths assumed on 8-aligned stacks).

import (
	"debug/elf"
	"sort"
	"sync"

	"github.com/polydbg/polydbg/backend/elfsym"
)

// stackObjects are the data objects of the ELF file (run-time [lo, hi)), sorted by lo.
type stackObjects struct {
	once sync.Once
	objs [][2]uint64
}

// containing returns the object holding addr.
func (o *stackObjects) containing(sym *elfsym.File, addr uint64) ([2]uint64, bool) {
	o.once.Do(func() {
		if syms, err := sym.ELF.Symbols(); err == nil {
			for _, s := range syms {
				if elf.ST_TYPE(s.Info) == elf.STT_OBJECT && s.Size > 0 && s.Value != 0 {
					o.objs = append(o.objs, [2]uint64{s.Value + sym.Bias, s.Value + sym.Bias + s.Size})
				}
			}
			sort.Slice(o.objs, func(i, j int) bool { return o.objs[i][0] < o.objs[j][0] })
		}
	})
	i := sort.Search(len(o.objs), func(i int) bool { return o.objs[i][0] > addr }) - 1
	if i >= 0 && addr < o.objs[i][1] {
		return o.objs[i], true
	}
	return [2]uint64{}, false
}

// sizeStacks sets the stack size and use of each task whose TCB has pxEndOfStack. The use
// is the kernel's: the size less the fill left from the bottom (uxTaskGetStackHighWaterMark).
func (f *FreeRTOS) sizeStacks(m elfsym.Memory, tasks []Task) {
	starts := map[uint64]bool{}
	for _, t := range tasks {
		starts[t.stack] = true
	}
	for i := range tasks {
		t := &tasks[i]
		if t.end == 0 {
			continue
		}
		t.StackSize = f.stackSize(m, t.stack, t.end, starts)
		if s, err := m.ReadMemory(t.stack, int(t.StackSize)); err == nil {
			unused := 0
			for unused < len(s) && s[unused] == StackFill {
				unused++
			}
			t.StackUsage = t.StackSize - uint32(unused)
		}
	}
}

// stackSize is the size in bytes of the stack from pxStack to pxEndOfStack (see above);
// starts are the other tasks' pxStack (a stack right above is not this one's last slot).
func (f *FreeRTOS) stackSize(m elfsym.Memory, stack, end uint64, starts map[uint64]bool) uint32 {
	elem := uint64(f.tcb.stackElem)
	last := end - stack + elem // pxEndOfStack is the last slot
	if elem >= 8 || end%8 != 0 {
		return uint32(last) // not aligned down
	}
	if obj, ok := f.objects.containing(f.sym, stack); ok {
		switch obj[1] {
		case stack + last:
			return uint32(last)
		case stack + last + elem:
			return uint32(last + elem)
		}
	}
	above := aboveUnknown
	if starts[end+elem] {
		above = aboveOther
	} else if b, err := m.ReadMemory(end+elem, int(elem)); err == nil && len(b) == int(elem) {
		above = aboveOther
		if allFill(b) {
			above = aboveFill
		}
	}
	return stackSize(stack, end, elem, above)
}

// What the slot above pxEndOfStack holds.
const (
	aboveUnknown = iota // unreadable
	aboveFill           // the fill byte: the stack's last slot
	aboveOther          // anything else: not the stack's
)

// stackSize is the size in bytes of a stack from pxStack, pxEndOfStack, the slot size and
// what the slot above pxEndOfStack holds (see above).
func stackSize(stack, end, elem uint64, above int) uint32 {
	size := end - stack + elem // pxEndOfStack is the last slot
	if elem >= 8 || end%8 != 0 {
		return uint32(size)
	}
	switch above {
	case aboveFill:
		size += elem // the last slot was aligned down
	case aboveUnknown:
		if stack%8 == 0 {
			size += elem // an even depth, the usual case
		}
	}
	return uint32(size)
}

func allFill(b []byte) bool {
	for _, c := range b {
		if c != StackFill {
			return false
		}
	}
	return true
}
