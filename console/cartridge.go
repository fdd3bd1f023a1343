package console

import (
	"bytes"
	"encoding/gob"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/polydbg/polydbg/internal/fileload"
	"github.com/polydbg/polydbg/kite"
	"github.com/polydbg/polydbg/kite/compile"
	"github.com/polydbg/polydbg/kite/vm"
)

// Cartridge is a loaded cartridge: its directory, manifest and compiled program.
type Cartridge struct {
	Dir      string // absolute
	Manifest *Manifest
	Program  *compile.Program
}

// bytecodeMagic starts a compiled program written by Build.
const bytecodeMagic = "PMTU-KBC1\n"

// Load reads a cartridge directory: its manifest (validated) and its entrypoint, a .kite
// source file or a compiled program written by Build. The program must define frame().
func Load(dir string) (*Cartridge, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	m, err := ReadManifest(abs)
	if err != nil {
		return nil, err
	}
	entry := filepath.Join(abs, m.Entrypoint)
	data, err := fileload.ReadFile(entry)
	if err != nil {
		return nil, err
	}
	var prog *compile.Program
	if bytes.HasPrefix(data, []byte(bytecodeMagic)) {
		prog, err = decodeProgram(data[len(bytecodeMagic):], abs)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", entry, err)
		}
	} else {
		prog, err = kite.Compile(entry, data, hostNames())
		if err != nil {
			return nil, err
		}
	}
	if !definesFunc(prog, "frame") {
		return nil, fmt.Errorf("%s: the cartridge defines no fn frame()", entry)
	}
	return &Cartridge{Dir: abs, Manifest: m, Program: prog}, nil
}

func definesFunc(p *compile.Program, name string) bool {
	for _, g := range p.Globals {
		if g.Name == name && !g.Implicit {
			return len(p.FuncByName(name)) > 0
		}
	}
	return false
}

// Build compiles a cartridge's .kite entrypoint into a program file (out; by default the
// entrypoint with the extension .kbc) that a manifest may name as its entrypoint.
func Build(dir, out string) (string, error) {
	c, err := Load(dir)
	if err != nil {
		return "", err
	}
	if out == "" {
		src := filepath.Join(c.Dir, c.Manifest.Entrypoint)
		out = src[:len(src)-len(filepath.Ext(src))] + ".kbc"
	}
	data, err := EncodeProgram(c.Program, c.Dir)
	if err != nil {
		return "", err
	}
	return out, os.WriteFile(out, data, 0o644)
}

// EncodeProgram writes a compiled program; file names are stored relative to dir.
func EncodeProgram(p *compile.Program, dir string) ([]byte, error) {
	q := *p
	if rel, err := filepath.Rel(dir, p.File); err == nil && filepath.IsLocal(rel) {
		q.File = filepath.ToSlash(rel)
	} else {
		q.File = filepath.Base(p.File)
	}
	var buf bytes.Buffer
	buf.WriteString(bytecodeMagic)
	if err := gob.NewEncoder(&buf).Encode(&q); err != nil {
		return nil, fmt.Errorf("encoding the program: %w", err)
	}
	return buf.Bytes(), nil
}

func decodeProgram(data []byte, dir string) (p *compile.Program, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("corrupt compiled program: %v", r)
		}
	}()
	p = new(compile.Program)
	if err := gob.NewDecoder(bytes.NewReader(data)).Decode(p); err != nil {
		return nil, fmt.Errorf("corrupt compiled program: %w", err)
	}
	if err := checkProgram(p); err != nil {
		return nil, err
	}
	p.File = filepath.Join(dir, filepath.FromSlash(p.File))
	return p, nil
}

// checkProgram rejects a decoded program whose tables do not fit together, so that a
// damaged file cannot make the VM index out of range.
func checkProgram(p *compile.Program) error {
	bad := errors.New("corrupt compiled program: inconsistent tables")
	if len(p.Funcs) == 0 || len(p.Lines) != len(p.Code) {
		return bad
	}
	for _, f := range p.Funcs {
		if f == nil || f.Entry < 0 || f.End > len(p.Code) || f.Entry > f.End || f.NumLocals < f.NumParams {
			return bad
		}
	}
	for _, c := range p.Consts {
		switch c.(type) {
		case int64, float64, string:
		default:
			return bad
		}
	}
	known := map[string]bool{}
	for _, n := range vm.BuiltinNames(hostStubs) {
		known[n] = true
	}
	for _, n := range p.Builtins {
		if !known[n] {
			return fmt.Errorf("compiled program uses unknown builtin %q", n)
		}
	}
	return nil
}
