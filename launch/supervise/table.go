package supervise

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"sync"
)

// Table is a daemon's set of programs under two budgets: how many programs there may be
// (uploads in progress count) and how many bytes their uploads may hold in all.
type Table struct {
	sup         *Supervisor
	maxPrograms int
	maxBytes    int64

	mu       sync.Mutex
	programs map[string]*Program
	seq      uint64
	pending  int   // uploads in progress
	bytes    int64 // held or reserved
	closed   bool
}

// ErrClosed is a reservation refused because the table was closed (the daemon stops).
var ErrClosed = errors.New("the daemon is stopping")

// LimitError is a reservation refused by one of the budgets.
type LimitError struct {
	Bytes bool  // the byte budget (else the number of programs)
	Max   int64 // the budget
	InUse int64 // bytes in use (Bytes)
}

func (e *LimitError) Error() string {
	if e.Bytes {
		return fmt.Sprintf("uploads may hold at most %d bytes in all (%d in use)", e.Max, e.InUse)
	}
	return fmt.Sprintf("at most %d programs", e.Max)
}

// NewTable makes a table holding the programs kept from before (Supervisor.Load).
func NewTable(sup *Supervisor, maxPrograms int, maxBytes int64, kept []*Program) *Table {
	t := &Table{sup: sup, maxPrograms: maxPrograms, maxBytes: maxBytes, programs: map[string]*Program{}}
	for _, p := range kept {
		t.programs[p.ID] = p
		t.bytes += p.Held
		t.seq = max(t.seq, p.Seq)
	}
	return t
}

// Get finds a program by id.
func (t *Table) Get(id string) (*Program, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	p, ok := t.programs[id]
	return p, ok
}

// List lists the programs in upload order.
func (t *Table) List() []*Program {
	t.mu.Lock()
	list := make([]*Program, 0, len(t.programs))
	for _, p := range t.programs {
		list = append(list, p)
	}
	t.mu.Unlock()
	sort.Slice(list, func(i, j int) bool { return list[i].Seq < list[j].Seq })
	return list
}

// Reserve takes a program slot and hold bytes of the budget for an upload, and returns its
// new program (a fresh 8-hex-digit id). The upload ends with Admit or Abandon.
func (t *Table) Reserve(hold int64) (*Program, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	switch {
	case t.closed:
		return nil, ErrClosed
	case len(t.programs)+t.pending >= t.maxPrograms:
		return nil, &LimitError{Max: int64(t.maxPrograms)}
	case t.bytes+hold > t.maxBytes:
		return nil, &LimitError{Bytes: true, Max: t.maxBytes, InUse: t.bytes}
	}
	t.pending++
	t.bytes += hold
	t.seq++
	id := ""
	for id == "" || t.programs[id] != nil {
		var b [4]byte
		rand.Read(b[:])
		id = hex.EncodeToString(b[:])
	}
	p := t.sup.NewProgram(id, t.seq)
	p.Held = hold
	return p, nil
}

// Room is what is left of the byte budget.
func (t *Table) Room() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.maxBytes - t.bytes
}

// Grow adds n bytes to what p holds, when the budget has room for them.
func (t *Table) Grow(p *Program, n int64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.bytes+n > t.maxBytes {
		return false
	}
	t.bytes += n
	p.Held += n
	return true
}

// Admit adds a program whose upload is complete.
func (t *Table) Admit(p *Program) {
	t.mu.Lock()
	t.pending--
	t.programs[p.ID] = p
	t.mu.Unlock()
}

// Abandon releases a program whose upload failed, and what it held.
func (t *Table) Abandon(p *Program) {
	held := p.Release()
	t.mu.Lock()
	t.pending--
	t.bytes -= held
	t.mu.Unlock()
}

// Delete deletes a program that does not run (ErrRunning if it does).
func (t *Table) Delete(p *Program) error {
	held, err := p.Delete()
	if err != nil {
		return err
	}
	t.mu.Lock()
	delete(t.programs, p.ID)
	t.bytes -= held
	t.mu.Unlock()
	return nil
}

// Close refuses new uploads and shuts every program down (Program.Shutdown), together.
func (t *Table) Close() {
	t.mu.Lock()
	t.closed = true
	t.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range t.List() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.Shutdown()
		}()
	}
	wg.Wait()
}

// Usage is what the budgets hold now: programs, uploads in progress, and bytes.
func (t *Table) Usage() (programs, pending int, bytes int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.programs), t.pending, t.bytes
}
