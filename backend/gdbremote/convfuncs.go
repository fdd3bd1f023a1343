package gdbremote

// gdb's convenience functions on strings and memory ($_streq(name, "main") in a breakpoint
// condition): computed by the debugger from what the program holds, never by running the
// program's code, so a pure evaluation (a condition, a watch) may use them. Their results
// are ints, as gdb's.

import (
	"bytes"
	"fmt"
	"regexp"
)

// maxStringFunc bounds how much of a string a convenience function reads (64 KiB).
const maxStringFunc = 64 << 10

// convenienceFuncs are gdb's functions by name, each given its evaluated arguments.
var convenienceFuncs = map[string]func(p *arithParser, args []arithOperand) (arithOperand, error){
	"$_streq": func(p *arithParser, args []arithOperand) (arithOperand, error) {
		s, err := p.stringArgs("$_streq", args, 2)
		if err != nil {
			return arithOperand{}, err
		}
		return truthOperand(bytes.Equal(s[0], s[1])), nil
	},
	"$_strlen": func(p *arithParser, args []arithOperand) (arithOperand, error) {
		s, err := p.stringArgs("$_strlen", args, 1)
		if err != nil {
			return arithOperand{}, err
		}
		return arithOperand{kind: "int", i: int64(len(s[0])), ct: tInt}, nil
	},
	"$_regex": func(p *arithParser, args []arithOperand) (arithOperand, error) {
		s, err := p.stringArgs("$_regex", args, 2)
		if err != nil {
			return arithOperand{}, err
		}
		re, err := regexp.Compile(`^(?:` + string(s[1]) + `)`) // matched at the start, as Python's re.match
		if err != nil {
			return arithOperand{}, fmt.Errorf("$_regex: %v", err)
		}
		return truthOperand(re.Match(s[0])), nil
	},
	"$_memeq": func(p *arithParser, args []arithOperand) (arithOperand, error) {
		if len(args) != 3 {
			return arithOperand{}, fmt.Errorf("$_memeq takes 3 arguments, not %d", len(args))
		}
		n, err := p.number(args[2])
		switch {
		case err != nil:
			return arithOperand{}, err
		case n.sint() < 0:
			return arithOperand{}, fmt.Errorf("length must be non-negative")
		case n.sint() > maxStringFunc:
			return arithOperand{}, fmt.Errorf("$_memeq compares at most %d bytes", maxStringFunc)
		case n.sint() == 0:
			return truthOperand(true), nil
		}
		var b [2][]byte
		for i := range b {
			if args[i].obj == nil {
				return arithOperand{}, fmt.Errorf("$_memeq: argument %d is not an array or a pointer", i+1)
			}
			if b[i], err = p.e.t.sym.BytesOf(*args[i].obj, int(n.sint()), cachedMem{p.e.t}); err != nil {
				if o := args[i].obj; o.Kind == "pointer" && len(o.Bytes) > 0 {
					err = pythonMemoryError(Uint(o.Bytes, p.e.t.order))
				}
				return arithOperand{}, err
			}
		}
		return truthOperand(bytes.Equal(b[0], b[1])), nil
	},
	"$_creal": func(p *arithParser, args []arithOperand) (arithOperand, error) {
		return p.complexPart("$_creal", args, false)
	},
	"$_cimag": func(p *arithParser, args []arithOperand) (arithOperand, error) {
		return p.complexPart("$_cimag", args, true)
	},
	"$_isvoid": func(p *arithParser, args []arithOperand) (arithOperand, error) {
		if len(args) != 1 {
			return arithOperand{}, fmt.Errorf("You must provide one argument for $_isvoid.")
		}
		return truthOperand(args[0].obj != nil && args[0].obj.Kind == "void"), nil
	},
}

// convenience is a call of gdb's function name, after its "(".
func (p *arithParser) convenience(name string) (arithOperand, error) {
	args, err := p.arguments()
	if err != nil || p.skip {
		return arithOperand{kind: "int"}, err
	}
	return convenienceFuncs[name](p, args)
}

// stringArgs reads the n C strings a function takes.
func (p *arithParser) stringArgs(name string, args []arithOperand, n int) ([][]byte, error) {
	if len(args) != n {
		return nil, fmt.Errorf("%s takes %d argument%s, not %d", name, n, map[bool]string{true: "", false: "s"}[n == 1], len(args))
	}
	out := make([][]byte, n)
	for i, a := range args {
		if a.obj == nil {
			return nil, fmt.Errorf("Trying to read string with inappropriate type `%s'.", promote(a.ct).name)
		}
		s, err := p.e.t.sym.StringOf(*a.obj, cachedMem{p.e.t}, maxStringFunc)
		if err != nil && a.obj.Kind == "pointer" && len(a.obj.Bytes) > 0 {
			return nil, pythonMemoryError(Uint(a.obj.Bytes, p.e.t.order))
		}
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

// pythonMemoryError is gdb's error for a string function (written in Python there) that
// could not read the memory at addr.
func pythonMemoryError(addr uint64) error {
	return fmt.Errorf("Python Exception <class 'gdb.MemoryError'>: Cannot access memory at address %#x\n"+
		"Error occurred in Python: Cannot access memory at address %#x", addr, addr)
}

// truthOperand is a truth value as gdb's string functions give it: 1 or 0, an int.
func truthOperand(b bool) arithOperand {
	v := arithOperand{kind: "int", ct: tInt}
	if b {
		v.i = 1
	}
	return v
}

// complexPart is $_creal(z) or $_cimag(z) (imag): a part of a complex number.
func (p *arithParser) complexPart(name string, args []arithOperand, imag bool) (arithOperand, error) {
	if len(args) != 1 {
		return arithOperand{}, fmt.Errorf("%s takes 1 argument, not %d", name, len(args))
	}
	z := args[0].referred()
	if z.obj == nil {
		return arithOperand{}, fmt.Errorf("expected a complex number") // gdb's words
	}
	v, err := p.e.t.sym.ComplexPart(*z.obj, imag)
	v.Name = name + "(" + z.obj.Name + ")"
	return arithOperand{obj: &v}, err
}
