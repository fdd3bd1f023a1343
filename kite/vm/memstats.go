package vm

import "unsafe"

// MemStats counts the values reachable from the program's globals and stack: what is live
// at the moment it is taken (at the end of a run, the globals). Each container, string and
// closure is counted once however often it is referenced.
type MemStats struct {
	Values      int64 // all live values, scalars included
	Nils        int64
	Bools       int64
	Ints        int64
	Floats      int64
	Strings     int64
	StringBytes int64
	Lists       int64
	ListItems   int64
	Maps        int64
	MapEntries  int64
	Closures    int64 // live function values (callbacks)
	Builtins    int64
	Globals     int64 // defined global bindings
	GlobalBytes int64 // bytes of their names
	StdoutBytes int64
}

// MemStats walks the live values.
func (vm *VM) MemStats() MemStats {
	var m MemStats
	seen := map[unsafe.Pointer]bool{}
	var walk func(v Value)
	walk = func(v Value) {
		switch v.k {
		case StringKind, ListKind, MapKind, FuncKind, cellKind:
			if v.p != nil {
				if seen[v.p] {
					return
				}
				seen[v.p] = true
			}
		}
		switch v.k {
		case NilKind:
			m.Nils++
		case BoolKind:
			m.Bools++
		case IntKind:
			m.Ints++
		case FloatKind:
			m.Floats++
		case StringKind:
			m.Strings++
			m.StringBytes += int64(v.n)
		case ListKind:
			m.Lists++
			items := v.List().Items
			m.ListItems += int64(len(items))
			for _, x := range items {
				walk(x)
			}
		case MapKind:
			m.Maps++
			m.MapEntries += int64(v.Map().Len())
			v.Map().Range(func(k, x Value) bool { walk(k); walk(x); return true })
		case FuncKind:
			m.Closures++
			for _, c := range v.Closure().Free {
				walk(cellValue(c))
			}
		case BuiltinKind:
			m.Builtins++
		case cellKind:
			walk((*Cell)(v.p).V)
			return // a cell is a variable, not a value
		default:
			return
		}
		m.Values++
	}
	for _, g := range vm.Globals() {
		m.Globals++
		m.GlobalBytes += int64(len(g.Name))
		walk(g.Value)
	}
	for i := 0; i < vm.sp && i < len(vm.stack); i++ {
		walk(vm.stack[i])
	}
	m.StdoutBytes = vm.stdoutBytes
	return m
}
