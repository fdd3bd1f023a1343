package dap

import (
	"context"
	"fmt"
	"slices"
	"time"

	godap "github.com/google/go-dap"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/launch"
)

// Threads. Targets without threads (Kite, cartridges) show one thread, threadID. Targets
// whose threads can be listed and selected (native programs under gdbserver) show their
// real threads, with the stub's thread numbers as DAP ids. The engine inspects and steps
// the selected thread (all-stop: the others stay stopped), so a request about another
// thread selects it first.
//
// Frame ids say their thread: the frames of the thread that stopped are the engine's frame
// indexes plus one, as for single-threaded targets; the frames of another thread carry its
// slot (its place in threadState.slots, plus one) above frameShift.

const (
	frameShift = 20
	frameMask  = 1<<frameShift - 1
)

// threadState is what the connection knows of the threads at the current stop.
type threadState struct {
	list  []godap.Thread // the last list given out (shown again while the target runs)
	slots []uint64       // threads other than the one that stopped, by frame-id slot - 1
}

// multiThreaded says whether d's threads are real and selectable.
func multiThreaded(d *launch.Debuggee) bool {
	_, lists := d.Target().(engine.ThreadLister)
	_, selects := d.Target().(engine.ThreadSelector)
	return lists && selects
}

// threads answers the threads request.
func (c *conn) threads(ctx context.Context, d *launch.Debuggee) godap.ThreadsResponseBody {
	one := godap.ThreadsResponseBody{Threads: []godap.Thread{{Id: threadID, Name: "main"}}}
	if !multiThreaded(d) {
		return one
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	ths, err := d.Threads(ctx)
	if err != nil || len(ths) == 0 { // running: what was seen at the last stop
		if c.thr.list != nil {
			return godap.ThreadsResponseBody{Threads: c.thr.list}
		}
		return one
	}
	out := make([]godap.Thread, len(ths))
	for i, th := range ths {
		out[i] = godap.Thread{Id: int(th.ID), Name: th.Name}
	}
	c.thr.list = out
	return godap.ThreadsResponseBody{Threads: out}
}

// stopThread is the DAP id of the thread a stop happened in.
func stopThread(st *engine.Stop) int {
	if st == nil || st.ThreadID == 0 {
		return threadID
	}
	return int(st.ThreadID)
}

// useThread selects the thread a request names and returns its frame-id slot (0: the
// thread that stopped). threadID on a target that has no thread with that number means
// the thread that stopped (clients that assume one thread).
func (c *conn) useThread(d *launch.Debuggee, tid int) (int, error) {
	if !multiThreaded(d) || tid == 0 {
		return 0, nil
	}
	stopped := uint64(stopThread(d.LastStop()))
	id := uint64(tid)
	if tid == threadID && !c.knownThread(tid) {
		id = stopped
	}
	slot := 0
	if id != stopped {
		if !c.knownThread(tid) {
			return 0, fmt.Errorf("no thread %d", tid)
		}
		for i, s := range c.thr.slots {
			if s == id {
				slot = i + 1
			}
		}
		if slot == 0 {
			c.thr.slots = append(c.thr.slots, id)
			slot = len(c.thr.slots)
		}
	}
	if err := selectThread(d, id); err != nil {
		return 0, err
	}
	return slot, nil
}

// selectThread selects thread id unless it is selected already (a selection costs the
// stub a round trip and the stop's variable references).
func selectThread(d *launch.Debuggee, id uint64) error {
	if d.SelectedThread() == id {
		return nil
	}
	return d.SelectThread(id)
}

// knownThread says whether tid was in the last thread list (listed now if there is none).
func (c *conn) knownThread(tid int) bool {
	if c.thr.list == nil && c.d != nil {
		c.threads(context.Background(), c.d)
	}
	for _, th := range c.thr.list {
		if th.Id == tid {
			return true
		}
	}
	return false
}

// useFrameThread selects the thread of a frame id.
func (c *conn) useFrameThread(d *launch.Debuggee, frameID int) error {
	if !multiThreaded(d) || frameID <= 0 {
		return nil
	}
	id := uint64(stopThread(d.LastStop()))
	if slot := frameID >> frameShift; slot > 0 {
		if slot > len(c.thr.slots) {
			return fmt.Errorf("no frame %d", frameID)
		}
		id = c.thr.slots[slot-1]
	}
	return selectThread(d, id)
}

// selectFor selects the thread a request is about before it runs: a step moves only its
// thread; scopes, evaluate and completions look at their frame's thread.
func (c *conn) selectFor(d *launch.Debuggee, msg godap.Message) error {
	var err error
	switch r := msg.(type) {
	case *godap.NextRequest:
		_, err = c.useThread(d, r.Arguments.ThreadId)
	case *godap.StepInRequest:
		_, err = c.useThread(d, r.Arguments.ThreadId)
	case *godap.StepOutRequest:
		_, err = c.useThread(d, r.Arguments.ThreadId)
	case *godap.ScopesRequest:
		err = c.useFrameThread(d, r.Arguments.FrameId)
	case *godap.EvaluateRequest:
		err = c.useFrameThread(d, r.Arguments.FrameId)
	case *godap.CompletionsRequest:
		err = c.useFrameThread(d, r.Arguments.FrameId)
	case *godap.StepInTargetsRequest:
		err = c.useFrameThread(d, r.Arguments.FrameId)
	case *godap.SetExpressionRequest:
		err = c.useFrameThread(d, r.Arguments.FrameId)
	case *godap.DataBreakpointInfoRequest:
		err = c.useFrameThread(d, r.Arguments.FrameId)
	}
	return err
}

// resetStop forgets what lives for one stop: frame-id slots, goto targets.
func (c *conn) resetStop() { c.thr.slots, c.gotos, c.calls, c.named = nil, nil, nil, nil }

// threadEvents tells the client, at a stop, the threads that started or exited since the
// last one (the engine's ThreadChanges), on targets with real threads.
func (c *conn) threadEvents() {
	d := c.d
	if d == nil || !multiThreaded(d) {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	started, ended, err := c.lives.Update(ctx, d.Session)
	if err != nil {
		return
	}
	for _, th := range started {
		c.event("thread", godap.ThreadEventBody{Reason: "started", ThreadId: int(th.ID)})
	}
	for _, th := range ended {
		c.event("thread", godap.ThreadEventBody{Reason: "exited", ThreadId: int(th.ID)})
	}
}

// liveThread tells the client of a thread that started or exited while the program ran,
// unless it knows already (the engine's ThreadChanges, shared with the stops), and keeps
// the list shown while the program runs up to date.
func (c *conn) liveThread(e engine.Event) {
	if !c.lives.Note(e) {
		return
	}
	tc := e.Thread
	id := int(tc.Thread.ID)
	c.event("thread", godap.ThreadEventBody{Reason: tc.Reason, ThreadId: id})
	if c.thr.list == nil {
		return
	}
	c.thr.list = slices.DeleteFunc(slices.Clone(c.thr.list), func(th godap.Thread) bool { return th.Id == id })
	if tc.Reason == engine.ThreadStarted {
		c.thr.list = append(c.thr.list, godap.Thread{Id: id, Name: tc.Thread.Name})
	}
}
