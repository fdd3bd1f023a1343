package gdbremote

// A standard container's size(), empty(), front(), back() and at(i), answered from what
// its printer read, as libstdc++'s xmethods answer them for gdb: without running the
// program, which often has no code for them (inlined, or never called).

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/backend/elfsym"
)

// libraryMethods are the methods each container has an xmethod for, by its class's name.
var libraryMethods = []struct {
	prefix  string
	methods string
}{
	{"std::vector<", "size empty front back at"},
	{"std::deque<", "size empty front back at"},
	{"std::array<", "size empty front back at"},
	{"std::__cxx11::list<", "size empty front back"},
	{"std::forward_list<", "empty front"},
	{"std::map<", "size empty"}, {"std::set<", "size empty"}, {"std::multimap<", "size empty"}, {"std::multiset<", "size empty"},
	{"std::unordered_map<", "size empty"}, {"std::unordered_set<", "size empty"},
	{"std::unordered_multimap<", "size empty"}, {"std::unordered_multiset<", "size empty"},
	{"std::unique_ptr<", "get"}, {"std::shared_ptr<", "get use_count unique"},
}

// libraryMethod is obj.name(...) when a libstdc++ xmethod answers it (the "(" is next);
// ok is false for another method or class, which the program's own code may answer.
func (p *arithParser) libraryMethod(obj arithOperand, name string) (r arithOperand, ok bool, err error) {
	v := obj.referred().obj
	if v == nil {
		return obj, false, nil
	}
	methods := ""
	for _, m := range libraryMethods {
		if strings.HasPrefix(v.Type, m.prefix) {
			methods = m.methods
			break
		}
	}
	if !strings.Contains(" "+methods+" ", " "+name+" ") {
		return obj, false, nil
	}
	smart := name == "get" || name == "use_count" || name == "unique"
	n, counted := v.Elements()
	if !smart && !counted && name != "front" && name != "empty" {
		return obj, false, nil // (a container its printer did not read)
	}
	p.pos++ // "("
	args, err := p.arguments()
	switch {
	case err != nil:
		return obj, true, err
	case name == "at" && len(args) != 1:
		return obj, true, errors.New("at() takes one argument, an index")
	case name != "at" && len(args) != 0:
		return obj, true, fmt.Errorf("%s() takes no arguments", name)
	}
	if smart {
		r, err := p.smartPointerMethod(v, name)
		return r, true, err
	}
	empty := counted && n == 0 || !counted && strings.HasPrefix(v.Text, "empty ")
	switch name {
	case "size": // a std::size_t, as whatis names it, an unsigned long in arithmetic
		b := make([]byte, 8)
		p.e.t.order.PutUint64(b, n)
		size := elfsym.Value{Name: v.Name + ".size()", Type: "std::size_t", Kind: "uint", Text: strconv.FormatUint(n, 10), Bytes: b}
		return arithOperand{obj: &size}, true, nil
	case "empty":
		return p.truthValue(empty), true, nil
	case "at":
		a, err := p.number(args[0])
		if err != nil || a.kind == "float" {
			return obj, true, errors.New("at() takes an integer index")
		}
		i := a.i
		if a.kind == "uint" {
			i = int64(a.u)
		}
		c, err := p.e.t.sym.ElementAt(*v, i, cachedMem{p.e.t})
		return arithOperand{obj: &c}, true, err
	}
	if empty {
		return obj, true, fmt.Errorf("%s is empty: it has no %s()", v.Name, name)
	}
	i := int64(0) // front
	if name == "back" {
		i = int64(n) - 1
	}
	c, err := p.e.t.sym.Element(*v, i, cachedMem{p.e.t})
	if err != nil && i < int64(len(v.Children)) { // a list's: its nodes as its printer read them
		c, err = v.Children[i], nil
		c.Name = v.Name + "." + name + "()"
	}
	return arithOperand{obj: &c}, true, err
}

// smartPointerMethod is a std::unique_ptr's or std::shared_ptr's get(), or a shared_ptr's
// use_count() (a long) or unique(), read from it and its control block.
func (p *arithParser) smartPointerMethod(v *elfsym.Value, name string) (arithOperand, error) {
	mem := cachedMem{p.e.t}
	if name == "get" {
		ptr, ok := p.e.t.sym.OwnedPointer(*v, mem)
		if !ok {
			return arithOperand{}, fmt.Errorf("%s is not laid out as libstdc++'s", v.Name)
		}
		return arithOperand{obj: &ptr}, nil
	}
	use, ok := p.e.t.sym.UseCount(*v, mem)
	if !ok {
		return arithOperand{}, fmt.Errorf("%s is not laid out as libstdc++'s", v.Name)
	}
	if name == "unique" {
		return p.truthValue(use == 1), nil
	}
	return arithOperand{kind: "int", i: use, ct: tLong}, nil
}
