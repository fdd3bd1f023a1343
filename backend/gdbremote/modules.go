package gdbremote

// Target: the loaded modules (engine.ModuleLister): the program, and the shared libraries
// the dynamic linker has loaded, from the stub's qXfer:libraries-svr4 (gdbserver reads
// the linker's r_debug list).

import (
	"context"
	"encoding/xml"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/engine"
)

var _ engine.ModuleLister = (*Target)(nil)

// Modules implements engine.ModuleLister.
func (t *Target) Modules(ctx context.Context) ([]engine.Module, error) {
	if err := t.needStopped(); err != nil {
		return nil, EngineError(err)
	}
	return t.moduleList(ctx)
}

// moduleList is Modules of the target stopped, whatever its state says (the run loop at a
// library event).
func (t *Target) moduleList(ctx context.Context) ([]engine.Module, error) {
	path := t.elfPath
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	mods := []engine.Module{{Name: filepath.Base(path), Path: path, Base: t.sym.Bias, Symbols: true}}
	libs, err := t.readLibraries(ctx)
	if err != nil {
		return mods, EngineError(err)
	}
	interp := t.sym.Interpreter()
	if len(libs) == 0 && interp != "" && t.started() { // at the first instruction (starti, an exec): the dynamic linker alone, where the kernel put it
		if aux, err := t.c.Auxv(ctx, t.sym.Arch.PtrSize, t.sym.Arch.ByteOrder); err == nil && aux[7] != 0 {
			libs = append(libs, engine.Module{Name: filepath.Base(interp), Path: interp, Base: aux[7]})
		}
	}
	for i := range libs {
		l := &libs[i]
		l.Interpreter = interp != "" && l.Path == interp
		if li, ok := t.libraryInfo(l.Path); ok {
			l.DebugInfo, l.DebugRead = li.DebugInfo, li.DebugInfo
			if li.TextSize > 0 {
				l.TextStart, l.TextEnd = l.Base+li.TextAddr, l.Base+li.TextAddr+li.TextSize
			}
		}
	}
	return append(mods, libs...), nil
}

// libraryInfo reads a library's file once (a stop lists the modules again); false when
// the file is not on this machine (a remote stub's).
func (t *Target) libraryInfo(path string) (elfsym.LibraryInfo, bool) {
	t.libsMu.Lock()
	defer t.libsMu.Unlock()
	if li, ok := t.libs[path]; ok {
		return li, li != (elfsym.LibraryInfo{})
	}
	li, err := elfsym.ReadLibraryInfo(path, t.sym.DebugDirs())
	if t.libs == nil {
		t.libs = map[string]elfsym.LibraryInfo{}
	}
	t.libs[path] = li
	return li, err == nil
}

// svr4List is a <library-list-svr4> document: the program's link_map (main-lm) and one
// <library name=... lm=... l_addr=...> per object the dynamic linker has mapped.
type svr4List struct {
	MainLM    string `xml:"main-lm,attr"`
	Libraries []struct {
		Name  string `xml:"name,attr"`
		LM    string `xml:"lm,attr"`
		LAddr string `xml:"l_addr,attr"`
	} `xml:"library"`
}

func parseSVR4(b []byte) (svr4List, error) {
	var doc svr4List
	if err := xml.Unmarshal(b, &doc); err != nil {
		return doc, fmt.Errorf("%w: libraries-svr4: %v", ErrGarbage, err)
	}
	return doc, nil
}

// hexAttr is an attribute's 0x-prefixed hex number, 0 when it is not one.
func hexAttr(s string) uint64 {
	v, _ := strconv.ParseUint(strings.TrimPrefix(s, "0x"), 16, 64)
	return v
}

// parseLibrariesSVR4 reads the modules of a <library-list-svr4> document (the vDSO, which
// has no file name, left out).
func parseLibrariesSVR4(b []byte) ([]engine.Module, error) {
	doc, err := parseSVR4(b)
	if err != nil {
		return nil, err
	}
	var out []engine.Module
	for _, l := range doc.Libraries {
		if l.Name == "" || !strings.Contains(l.Name, "/") { // the vDSO ("linux-vdso.so.1")
			continue
		}
		out = append(out, engine.Module{Name: filepath.Base(l.Name), Path: l.Name, Base: hexAttr(l.LAddr)})
	}
	return out, nil
}
