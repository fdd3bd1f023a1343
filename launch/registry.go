package launch

import (
	"sort"
	"strconv"
	"sync"

	"github.com/polydbg/polydbg/engine"
)

// Registry lists the live debuggees of one polydbg process, so that another front end (the
// web view, a read-only mirror) can find and watch the sessions a first one started. The zero
// value is ready to use; Sessions is the process's registry.
type Registry struct {
	mu     sync.Mutex
	nextID int
	byID   map[string]*Entry
	notify []chan struct{}
}

// Entry is one registered debuggee.
type Entry struct {
	ID       string // unique in the registry, "1", "2"...
	Name     string // what a person recognises: the program's file name
	Owner    string // the front end that started it: "dap", "mcp", "debug"...
	Debuggee *Debuggee
}

// Sessions is the registry every front end of the process adds its debuggees to.
var Sessions = &Registry{}

// Add registers d and returns its entry.
func (r *Registry) Add(d *Debuggee, name, owner string) *Entry {
	r.mu.Lock()
	if r.byID == nil {
		r.byID = map[string]*Entry{}
	}
	r.nextID++
	e := &Entry{ID: strconv.Itoa(r.nextID), Name: name, Owner: owner, Debuggee: d}
	r.byID[e.ID] = e
	r.mu.Unlock()
	r.changed()
	return e
}

// Replace points an entry at a new debuggee (after a restart), keeping its id.
func (r *Registry) Replace(id string, d *Debuggee) {
	r.mu.Lock()
	if e := r.byID[id]; e != nil {
		e.Debuggee = d
	}
	r.mu.Unlock()
	r.changed()
}

// Remove unregisters an entry.
func (r *Registry) Remove(id string) {
	r.mu.Lock()
	delete(r.byID, id)
	r.mu.Unlock()
	r.changed()
}

// DebuggeeOf returns the debuggee whose session is s, or nil when none is registered.
func (r *Registry) DebuggeeOf(s *engine.Session) *Debuggee {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.byID {
		if e.Debuggee != nil && e.Debuggee.Session == s {
			return e.Debuggee
		}
	}
	return nil
}

// Get returns the entry with this id, or nil.
func (r *Registry) Get(id string) *Entry {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.byID[id]
}

// List returns the entries in the order they were added.
func (r *Registry) List() []*Entry {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]*Entry, 0, len(r.byID))
	for _, e := range r.byID {
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		a, _ := strconv.Atoi(out[i].ID)
		b, _ := strconv.Atoi(out[j].ID)
		return a < b
	})
	return out
}

// Changed returns a channel signalled (without blocking) whenever an entry is added,
// replaced or removed.
func (r *Registry) Changed() <-chan struct{} {
	ch := make(chan struct{}, 1)
	r.mu.Lock()
	r.notify = append(r.notify, ch)
	r.mu.Unlock()
	return ch
}

func (r *Registry) changed() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, ch := range r.notify {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}
