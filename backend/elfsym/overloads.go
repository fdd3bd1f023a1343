package elfsym

// How a C++ expression names functions, as gdb looks them up: by the name as written,
// within the scopes of the function running (a method's class, its namespaces), not as
// break does (any scope, every template instance); a name several functions share is an
// overload set, which a call resolves by its arguments.

import "strings"

// FuncValuesInScope are the values of the functions the C++ expression's name names in
// the function at pc: those named exactly name, else name in an enclosing scope of that
// function (innermost first); overloads in the order the program defines them. nil when
// none is.
func (f *File) FuncValuesInScope(name string, pc uint64) []Value {
	if vs := f.funcValuesInScope(name, pc); len(vs) > 0 {
		return vs
	}
	for _, alt := range f.usingNames(name, pc) { // twice of using namespace lib: lib::twice
		if vs := f.funcValuesInScope(alt, pc); len(vs) > 0 {
			return vs
		}
	}
	return nil
}

// funcValuesInScope is FuncValuesInScope without the names using directives and
// declarations add.
func (f *File) funcValuesInScope(name string, pc uint64) []Value {
	if lf := f.debugLibraryAt(pc); lf != nil {
		if vs := lf.FuncValuesInScope(name, pc); len(vs) > 0 {
			return vs
		}
	}
	var scopes []string // innermost first, the global one last
	if fn := f.FuncAt(pc); fn != nil {
		scope := plainName(fn.Name)
		for i := strings.LastIndex(scope, "::"); i > 0; i = strings.LastIndex(scope, "::") {
			scope = scope[:i]
			scopes = append(scopes, scope+"::")
		}
	}
	templated := strings.Contains(name, "<") // twice< long > is twice<long>
	for _, scope := range append(scopes, "") {
		var out []Value
		seen := map[uint64]bool{}
		for _, fn := range f.funcs {
			if fn.entry == 0 || seen[fn.Low] {
				continue
			}
			n := plainName(fn.Name)
			if n != scope+name && (!templated || withoutSpaces(n) != withoutSpaces(scope+name)) {
				continue
			}
			if v, _, _, ok := f.valueOfFunc(fn, name); ok {
				seen[fn.Low] = true
				out = append(out, v)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// LastOverload is, of the functions break name binds at, the last defined when they are
// overloads of one C++ function (the same name): the one gdb's info address and info scope
// take; else the first, as for any name.
func (f *File) LastOverload(name string) (*Func, bool) {
	fns := f.FuncsNamed(name)
	if len(fns) == 0 {
		return nil, false
	}
	last := fns[len(fns)-1]
	for _, fn := range fns {
		if !fn.cplus || fn.Name != last.Name {
			return fns[0], true
		}
	}
	return last, true
}
