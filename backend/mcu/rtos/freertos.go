// Package rtos reads the task list of a real-time kernel from target memory, through the
// kernel's own data structures as the ELF file's DWARF describes them. FreeRTOS is
// supported: its tasks live in lists of TCBs (ready lists per priority, two delayed
// lists, the pending-ready, suspended and waiting-termination lists) and pxCurrentTCB
// points to the running one.
package rtos

import (
	"bytes"
	"debug/dwarf"
	"errors"
	"fmt"

	"github.com/polydbg/polydbg/backend/elfsym"
)

// Task is one task.
type Task struct {
	Name       string
	Priority   uint32
	State      string // running, ready, blocked, suspended, deleted
	StackUsage uint32 // bytes used at the high-water mark (0 when unknown)
	StackSize  uint32 // bytes (0 when unknown: the TCB has no pxEndOfStack)
	Handle     uint64 // TCB address

	stack, end uint64 // pxStack and pxEndOfStack (end 0 when unknown)
}

// ErrNoKernel means the ELF file has no FreeRTOS kernel (no pxCurrentTCB with DWARF).
var ErrNoKernel = errors.New("rtos: no FreeRTOS kernel symbols")

// StackFill is the byte FreeRTOS fills new stacks with (tskSTACK_FILL_BYTE).
const StackFill = 0xA5

const maxTasks = 256

// FreeRTOS reads FreeRTOS's task lists.
type FreeRTOS struct {
	sym     *elfsym.File
	ptr     int
	current uint64 // &pxCurrentTCB
	lists   []namedList
	tcb     tcbLayout
	list    listLayout
	objects stackObjects // data objects by address, for the size of static stacks
}

type namedList struct {
	addr  uint64 // a List_t, or (indirect) a List_t * variable
	state string
	indir bool
}

type tcbLayout struct {
	topOfStack, stateItem, eventItem, priority, stack, name, endOfStack int
	nameLen                                                             int
	stackElem                                                           int // sizeof(StackType_t)
	hasEnd                                                              bool
}

type listLayout struct {
	size                               int
	numItems, index, end               int // List_t
	itemNext, itemOwner, itemContainer int // ListItem_t
	miniNext                           int // MiniListItem_t.pxNext (offset in xListEnd)
}

// Open finds the kernel's variables and the layouts of its structures.
func Open(sym *elfsym.File) (*FreeRTOS, error) {
	if sym.DWARF == nil {
		return nil, ErrNoKernel
	}
	globals := map[string]*elfsym.Var{}
	for _, v := range sym.Globals() {
		if _, dup := globals[v.Name]; !dup {
			globals[v.Name] = v
		}
	}
	cur := globals["pxCurrentTCB"]
	ready := globals["pxReadyTasksLists"]
	if cur == nil || ready == nil {
		return nil, ErrNoKernel
	}
	f := &FreeRTOS{sym: sym, ptr: sym.Arch.PtrSize}
	addr := func(v *elfsym.Var) (uint64, error) {
		l, err := sym.Locate(v, nil, nil)
		if err != nil || l.Kind != elfsym.LocMemory {
			return 0, fmt.Errorf("rtos: %s has no static address: %v", v.Name, err)
		}
		return l.Addr, nil
	}
	var err error
	if f.current, err = addr(cur); err != nil {
		return nil, err
	}
	tcbT, ok := elfsym.Underlying(cur.Type).(*dwarf.PtrType)
	if !ok {
		return nil, fmt.Errorf("rtos: pxCurrentTCB is not a pointer")
	}
	tcb, ok := elfsym.Underlying(tcbT.Type).(*dwarf.StructType)
	if !ok {
		return nil, fmt.Errorf("rtos: the TCB type is not a struct")
	}
	arr, ok := elfsym.Underlying(ready.Type).(*dwarf.ArrayType)
	if !ok {
		return nil, fmt.Errorf("rtos: pxReadyTasksLists is not an array")
	}
	listT, ok := elfsym.Underlying(arr.Type).(*dwarf.StructType)
	if !ok {
		return nil, fmt.Errorf("rtos: List_t is not a struct")
	}
	if err := f.layouts(tcb, listT); err != nil {
		return nil, err
	}
	readyAt, err := addr(ready)
	if err != nil {
		return nil, err
	}
	n := 1
	if arr.Count > 0 {
		n = int(arr.Count)
	}
	for i := range n {
		f.lists = append(f.lists, namedList{addr: readyAt + uint64(i*f.list.size), state: "ready"})
	}
	for _, x := range []struct {
		name, state string
		indir       bool
	}{
		{"pxDelayedTaskList", "blocked", true},
		{"pxOverflowDelayedTaskList", "blocked", true},
		{"xPendingReadyList", "ready", false},
		{"xSuspendedTaskList", "suspended", false},
		{"xTasksWaitingTermination", "deleted", false},
	} {
		if v := globals[x.name]; v != nil {
			if a, err := addr(v); err == nil {
				f.lists = append(f.lists, namedList{addr: a, state: x.state, indir: x.indir})
			}
		}
	}
	return f, nil
}

func field(s *dwarf.StructType, name string) *dwarf.StructField {
	for _, f := range s.Field {
		if f.Name == name {
			return f
		}
	}
	return nil
}

func (f *FreeRTOS) layouts(tcb, list *dwarf.StructType) error {
	need := func(s *dwarf.StructType, name string) (int, error) {
		fl := field(s, name)
		if fl == nil {
			return 0, fmt.Errorf("rtos: %s has no field %s", s.StructName, name)
		}
		return int(fl.ByteOffset), nil
	}
	var err error
	t := &f.tcb
	for _, x := range []struct {
		dst  *int
		name string
	}{{&t.topOfStack, "pxTopOfStack"}, {&t.stateItem, "xStateListItem"}, {&t.eventItem, "xEventListItem"},
		{&t.priority, "uxPriority"}, {&t.stack, "pxStack"}, {&t.name, "pcTaskName"}} {
		if *x.dst, err = need(tcb, x.name); err != nil {
			return err
		}
	}
	if nf := field(tcb, "pcTaskName"); nf != nil {
		t.nameLen = int(nf.Type.Size())
	}
	t.stackElem = f.ptr
	if st := field(tcb, "pxStack"); st != nil {
		if pt, ok := elfsym.Underlying(st.Type).(*dwarf.PtrType); ok {
			if n := elfsym.Underlying(pt.Type).Size(); n > 0 && n <= 8 {
				t.stackElem = int(n)
			}
		}
	}
	if e := field(tcb, "pxEndOfStack"); e != nil {
		t.endOfStack, t.hasEnd = int(e.ByteOffset), true
	}
	l := &f.list
	l.size = int(list.Size())
	if l.numItems, err = need(list, "uxNumberOfItems"); err != nil {
		return err
	}
	if l.index, err = need(list, "pxIndex"); err != nil {
		return err
	}
	if l.end, err = need(list, "xListEnd"); err != nil {
		return err
	}
	mini, ok := elfsym.Underlying(field(list, "xListEnd").Type).(*dwarf.StructType)
	if !ok {
		return fmt.Errorf("rtos: xListEnd is not a struct")
	}
	if l.miniNext, err = need(mini, "pxNext"); err != nil {
		return err
	}
	item, ok := elfsym.Underlying(field(tcb, "xStateListItem").Type).(*dwarf.StructType)
	if !ok {
		return fmt.Errorf("rtos: xStateListItem is not a struct")
	}
	if l.itemNext, err = need(item, "pxNext"); err != nil {
		return err
	}
	if l.itemOwner, err = need(item, "pvOwner"); err != nil {
		return err
	}
	if l.itemContainer, err = need(item, "pxContainer"); err != nil {
		// FreeRTOS before 10.x called it pvContainer
		if l.itemContainer, err = need(item, "pvContainer"); err != nil {
			return err
		}
	}
	return nil
}

func (f *FreeRTOS) readPtr(m elfsym.Memory, a uint64) (uint64, error) {
	b, err := m.ReadMemory(a, f.ptr)
	if err != nil || len(b) < f.ptr {
		return 0, fmt.Errorf("rtos: read %#x: %v", a, err)
	}
	if f.ptr == 8 {
		return f.sym.Arch.ByteOrder.Uint64(b), nil
	}
	return uint64(f.sym.Arch.ByteOrder.Uint32(b)), nil
}

// Current returns the running task's TCB address.
func (f *FreeRTOS) Current(m elfsym.Memory) (uint64, error) { return f.readPtr(m, f.current) }

// CurrentAddr is the address of pxCurrentTCB (to sample it cheaply).
func (f *FreeRTOS) CurrentAddr() uint64 { return f.current }

// Tasks reads every task of every list. The running task is reported "running".
func (f *FreeRTOS) Tasks(m elfsym.Memory) ([]Task, error) {
	cur, err := f.Current(m)
	if err != nil {
		return nil, err
	}
	seen := map[uint64]bool{}
	var out []Task
	for _, nl := range f.lists {
		la := nl.addr
		if nl.indir {
			if la, err = f.readPtr(m, nl.addr); err != nil || la == 0 {
				continue
			}
		}
		owners, err := f.walk(m, la)
		if err != nil {
			return out, err
		}
		for _, tcb := range owners {
			if seen[tcb] || tcb == 0 || len(out) >= maxTasks {
				continue
			}
			seen[tcb] = true
			t, err := f.task(m, tcb)
			if err != nil {
				f.sizeStacks(m, out)
				return out, err
			}
			t.State = nl.state
			if nl.state == "suspended" {
				// a task blocked without timeout sits in the suspended list too
				if c, err := f.readPtr(m, tcb+uint64(f.tcb.eventItem+f.list.itemContainer)); err == nil && c != 0 {
					t.State = "blocked"
				}
			}
			if tcb == cur {
				t.State = "running"
			}
			out = append(out, t)
		}
	}
	if cur != 0 && !seen[cur] {
		if t, err := f.task(m, cur); err == nil {
			t.State = "running"
			out = append(out, t)
		}
	}
	f.sizeStacks(m, out)
	return out, nil
}

// walk returns the owners of a list's items.
func (f *FreeRTOS) walk(m elfsym.Memory, list uint64) ([]uint64, error) {
	end := list + uint64(f.list.end)
	item, err := f.readPtr(m, end+uint64(f.list.miniNext))
	if err != nil {
		return nil, err
	}
	var owners []uint64
	for i := 0; item != end && item != 0; i++ {
		if i >= maxTasks {
			return owners, fmt.Errorf("rtos: list at %#x does not end", list)
		}
		owner, err := f.readPtr(m, item+uint64(f.list.itemOwner))
		if err != nil {
			return owners, err
		}
		owners = append(owners, owner)
		if item, err = f.readPtr(m, item+uint64(f.list.itemNext)); err != nil {
			return owners, err
		}
	}
	return owners, nil
}

func (f *FreeRTOS) task(m elfsym.Memory, tcb uint64) (Task, error) {
	size := max(f.tcb.name+f.tcb.nameLen, f.tcb.priority+f.ptr, f.tcb.stack+f.ptr, f.tcb.endOfStack+f.ptr)
	b, err := m.ReadMemory(tcb, size)
	if err != nil || len(b) < size {
		return Task{}, fmt.Errorf("rtos: read TCB %#x: %v", tcb, err)
	}
	order := f.sym.Arch.ByteOrder
	ptr := func(off int) uint64 {
		if f.ptr == 8 {
			return order.Uint64(b[off:])
		}
		return uint64(order.Uint32(b[off:]))
	}
	name := b[f.tcb.name : f.tcb.name+f.tcb.nameLen]
	if i := bytes.IndexByte(name, 0); i >= 0 {
		name = name[:i]
	}
	t := Task{Name: string(name), Priority: uint32(ptr(f.tcb.priority)), Handle: tcb}
	stack := ptr(f.tcb.stack)
	if f.tcb.hasEnd {
		if end := ptr(f.tcb.endOfStack); end > stack && end-stack < 1<<20 {
			t.stack, t.end = stack, end // sized by Tasks, which knows every stack
		}
	}
	return t, nil
}
