package engine

import "context"

// ThreadChanges and ModuleChanges follow a program's threads and loaded modules from stop
// to stop, for front ends whose protocol tells a client when one appears or goes (DAP's
// thread and module events). They are listed at stops (all-stop: the program cannot
// change them meanwhile), so one that comes and goes between two stops is seen only where
// the target reports threads live (EventThread, which ThreadChanges.Note takes in:
// thread_events.go). Zero values are ready to use.

// ThreadChanges follows the threads of a program.
type ThreadChanges struct{ set changeSet[uint64, Thread] }

// Update lists the threads of the stopped program and returns those started and ended
// since the last Update (the first one reports every thread as started). A program that
// is not stopped, or a target without threads, changes nothing.
func (tc *ThreadChanges) Update(ctx context.Context, s *Session) (started, ended []Thread, err error) {
	if _, ok := s.Target().(ThreadLister); !ok {
		return nil, nil, nil
	}
	ths, err := s.Threads(ctx)
	if err != nil {
		return nil, nil, err // keep what was seen: a resumed program ended nothing
	}
	started, ended = tc.set.update(ths, func(t Thread) uint64 { return t.ID })
	return started, ended, nil
}

// ModuleChanges follows the modules a program has loaded.
type ModuleChanges struct{ set changeSet[string, Module] }

// Update lists the modules of the program and returns those loaded and unloaded since the
// last Update (the first one reports every module as loaded). When they cannot be listed
// (the program runs), nothing changed.
func (mc *ModuleChanges) Update(ctx context.Context, s *Session) (loaded, unloaded []Module, err error) {
	mods, err := s.Modules(ctx)
	if err != nil {
		return nil, nil, err
	}
	loaded, unloaded = mc.set.update(mods, func(m Module) string { return m.Path })
	return loaded, unloaded, nil
}

// Note takes the modules an EventModules lists as seen, and returns those loaded and
// unloaded since what was seen before; a later Update reports only what changed after.
func (mc *ModuleChanges) Note(e Event) (loaded, unloaded []Module) {
	if e.Kind != EventModules {
		return nil, nil
	}
	return mc.set.update(e.Modules, func(m Module) string { return m.Path })
}

// Last is the modules seen at the last Update.
func (mc *ModuleChanges) Last() []Module { return mc.set.list }

// changeSet is what was seen last of a list of things with keys.
type changeSet[K comparable, T any] struct {
	list []T
	keys map[K]bool
}

// update replaces what was seen by now and returns what was added and what went, each
// in its list's order.
func (c *changeSet[K, T]) update(now []T, key func(T) K) (added, gone []T) {
	keys := make(map[K]bool, len(now))
	for _, x := range now {
		keys[key(x)] = true
		if !c.keys[key(x)] {
			added = append(added, x)
		}
	}
	for _, x := range c.list {
		if !keys[key(x)] {
			gone = append(gone, x)
		}
	}
	c.list, c.keys = now, keys
	return added, gone
}
