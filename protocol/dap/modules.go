package dap

import (
	"context"
	"time"

	godap "github.com/google/go-dap"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/launch"
)

// Modules of native programs (engine.ModuleLister): the executable and the shared
// libraries it loaded. A module event goes out for every module loaded or unloaded: when
// the dynamic linker says so while the program runs (engine.EventModules), else before
// the next stop.

// canModules says whether d lists modules: programs under gdbserver, launched or attached.
func canModules(d *launch.Debuggee) bool {
	_, ok := d.Target().(engine.ModuleLister)
	return ok && (d.Spec.Kind == launch.Native || d.Spec.Kind == launch.Remote || d.Spec.Kind == launch.Attach)
}

func dapModule(m engine.Module) godap.Module {
	out := godap.Module{Id: m.Path, Name: m.Name, Path: m.Path, AddressRange: pcRef(m.Base),
		SymbolStatus: "Symbols not loaded", IsUserCode: m.Symbols}
	if m.Symbols || m.DebugRead { // the program, or a library built with debug information
		out.SymbolStatus, out.SymbolFilePath = "Symbols loaded", m.Path
	}
	return out
}

// listModules lists the modules now, or those seen at the last stop when the target runs.
func (c *conn) listModules(ctx context.Context, d *launch.Debuggee) []engine.Module {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	mods, err := d.Modules(ctx)
	if err != nil && len(mods) == 0 {
		return c.mods.Last()
	}
	return mods
}

// modules answers the modules request, paged by startModule/moduleCount.
func (c *conn) modules(ctx context.Context, d *launch.Debuggee, a godap.ModulesArguments) (any, error) {
	if !canModules(d) {
		return godap.ModulesResponseBody{Modules: []godap.Module{}}, nil
	}
	mods := c.listModules(ctx, d)
	page := engine.Page(mods, a.StartModule, a.ModuleCount)
	out := make([]godap.Module, len(page))
	for i, m := range page {
		out[i] = dapModule(m)
	}
	return godap.ModulesResponseBody{Modules: out, TotalModules: len(mods)}, nil
}

// moduleEvents tells the modules loaded and unloaded since the last stop (the engine's
// ModuleChanges).
func (c *conn) moduleEvents() {
	d := c.d
	if d == nil || !canModules(d) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	loaded, unloaded, err := c.mods.Update(ctx, d.Session)
	if err != nil {
		return
	}
	c.moduleChanges(loaded, unloaded)
}

// liveModules tells the modules an EventModules loaded and unloaded.
func (c *conn) liveModules(e engine.Event) {
	if c.d == nil || !canModules(c.d) {
		return
	}
	c.moduleChanges(c.mods.Note(e))
}

// moduleChanges sends a module event for each module loaded and unloaded.
func (c *conn) moduleChanges(loaded, unloaded []engine.Module) {
	for _, m := range loaded {
		c.event("module", godap.ModuleEventBody{Reason: "new", Module: dapModule(m)})
	}
	for _, m := range unloaded {
		c.event("module", godap.ModuleEventBody{Reason: "removed", Module: dapModule(m)})
	}
}
