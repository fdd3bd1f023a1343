package gdbremote

import (
	"path/filepath"
	"strings"

	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/cxxname"
)

// FunctionNames implements engine.Names: the program's own functions (libraries are not
// read), a C++ one by its signature (geo::add(int, int)), which tells its overloads apart
// and which `break` takes back.
func (t *Target) FunctionNames() []string {
	var out []string
	for _, f := range t.sym.Funcs() {
		out = append(out, t.sym.Signature(f))
	}
	return out
}

// SourceFiles implements engine.Names: each file of the line tables, as recorded and by its
// base name (line tables match a name by its ending).
func (t *Target) SourceFiles() []string {
	var out []string
	for _, f := range t.sym.Files() {
		out = append(out, f, filepath.Base(f))
	}
	return out
}

// FunctionDecl implements engine.FunctionDeclarer from the program's DWARF.
func (t *Target) FunctionDecl(name string) (engine.FunctionDecl, bool) {
	d, ok := t.sym.FuncDecl(name)
	return engine.FunctionDecl(d), ok
}

// TypeDecls implements engine.TypeDeclarer from the program's DWARF.
func (t *Target) TypeDecls() []engine.TypeDecl {
	ds := t.sym.TypeDecls()
	out := make([]engine.TypeDecl, len(ds))
	for i, d := range ds {
		out[i] = engine.TypeDecl(d)
	}
	return out
}

// VariableDecls implements engine.VariableDeclarer from the program's DWARF.
func (t *Target) VariableDecls() []engine.VariableDecl {
	ds := t.sym.VarDecls()
	out := make([]engine.VariableDecl, len(ds))
	for i, d := range ds {
		out[i] = engine.VariableDecl(d)
	}
	return out
}

// NondebugSymbols implements engine.SymbolTables: the program's, then (once it runs) its
// libraries'.
func (t *Target) NondebugSymbols() []engine.Symbol {
	if t.started() && t.core == nil {
		t.addLibraries()
	}
	ms := t.sym.MinSyms()
	out := make([]engine.Symbol, len(ms))
	for i, m := range ms {
		out[i] = engine.Symbol{Name: demangledSymbol(m.Name), Addr: m.Addr, Data: m.Data}
	}
	return out
}

// demangledSymbol is a symbol-table name as gdb lists it: a C++ one demangled, a PLT
// entry's too (std::filesystem::path::lexically_normal() const@plt).
func demangledSymbol(name string) string {
	base, plt := strings.CutSuffix(name, "@plt")
	if !strings.HasPrefix(base, "_Z") {
		return name
	}
	base = cxxname.Symbol(base)
	if plt {
		base += "@plt"
	}
	return base
}

// SetPrintLimits implements engine.PrintLimiter.
func (t *Target) SetPrintLimits(l engine.PrintLimits) {
	t.sym.SetPrintLimits(elfsym.PrintLimits(l))
}
