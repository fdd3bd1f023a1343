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

// parseLibrariesSVR4 reads a <library-list-svr4> document: one <library name=... l_addr=...>
// per object the dynamic linker has mapped (the vDSO has no file name and is left out).
func parseLibrariesSVR4(b []byte) ([]engine.Module, error) {
	var doc struct {
		Libraries []struct {
			Name  string `xml:"name,attr"`
			LAddr string `xml:"l_addr,attr"`
		} `xml:"library"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("%w: libraries-svr4: %v", ErrGarbage, err)
	}
	var out []engine.Module
	for _, l := range doc.Libraries {
		if l.Name == "" || !strings.Contains(l.Name, "/") { // the vDSO ("linux-vdso.so.1")
			continue
		}
		base, _ := strconv.ParseUint(strings.TrimPrefix(l.LAddr, "0x"), 16, 64)
		out = append(out, engine.Module{Name: filepath.Base(l.Name), Path: l.Name, Base: base})
	}
	return out, nil
}
