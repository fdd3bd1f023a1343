package process

import (
	"errors"
	"sync"
	"time"

	"github.com/polydbg/polydbg/engine"
)

// ErrNotSupported answers every debugging request (breakpoints, steps, pause, frames,
// variables) of a supervised process: it runs, prints and ends, nothing more.
var ErrNotSupported = errors.New("not supported for a supervised process (run it under gdbserver to debug it)")

// Target is a native program under supervision as an engine.Target, so that supervised
// programs go through an engine.Session like every other debuggee: Start runs it, its
// output becomes output events ("stdout", "stderr"), its end an exited event, and
// Terminate ends its process group (SIGTERM, then SIGKILL after the grace time) with a
// terminated event. It has no traps: ResolveLine, Pause, Resume, Stack... answer
// ErrNotSupported.
type Target struct {
	spec  Spec
	grace time.Duration

	mu         sync.Mutex
	p          *Process
	terminated bool
}

// NewTarget returns a target that runs spec (its OnOutput is replaced by the handler's
// output events). Terminate waits grace after SIGTERM before SIGKILL.
func NewTarget(spec Spec, grace time.Duration) *Target {
	return &Target{spec: spec, grace: grace}
}

// Start runs the program. A stop on entry is not possible and is refused.
func (t *Target) Start(h engine.Handler, stopOnEntry bool) error {
	if stopOnEntry {
		return ErrNotSupported
	}
	spec := t.spec
	spec.OnOutput = func(s Stream, b []byte) { h.Output(s.String(), string(b)) }
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.p != nil {
		return errors.New("process: already started")
	}
	if t.terminated {
		return errors.New("process: terminated before it started")
	}
	p, err := Start(spec)
	if err != nil {
		return err
	}
	t.p = p
	go func() {
		st := p.Wait() // its output has been delivered by now
		t.mu.Lock()
		terminated := t.terminated
		t.mu.Unlock()
		if terminated {
			h.Terminated()
			return
		}
		engine.ReportExit(h, st.ExitCode(), st.SignalName())
	}()
	return nil
}

// Status returns how the program ended (code or signal), and false while it runs or
// before it started.
func (t *Target) Status() (Status, bool) {
	t.mu.Lock()
	p := t.p
	t.mu.Unlock()
	if p == nil {
		return Status{}, false
	}
	return p.Status()
}

// ProcessID implements engine.ProcessIdentifier: the program's process id, or 0 before it
// started.
func (t *Target) ProcessID() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.p == nil {
		return 0
	}
	return t.p.Pid()
}

// Terminate ends the program's process group; the terminated event follows its end.
func (t *Target) Terminate() error {
	t.mu.Lock()
	p := t.p
	already := t.terminated
	t.terminated = true
	t.mu.Unlock()
	if p != nil && !already {
		go p.Stop(t.grace)
	}
	return nil
}

// Close kills the program if it still runs and waits for its end.
func (t *Target) Close() error {
	t.mu.Lock()
	p := t.p
	t.mu.Unlock()
	if p != nil {
		p.Kill()
	}
	return nil
}

func (t *Target) Resume(engine.ResumeMode) error { return ErrNotSupported }
func (t *Target) Pause() error                   { return ErrNotSupported }
func (t *Target) ResolveLine(string, int) (engine.Location, error) {
	return engine.Location{}, ErrNotSupported
}
func (t *Target) ResolveFunction(string) (engine.Location, error) {
	return engine.Location{}, ErrNotSupported
}
func (t *Target) SetTrap(engine.Location, bool) error { return ErrNotSupported }
func (t *Target) CompileCondition(engine.Location, string) (engine.Condition, error) {
	return nil, ErrNotSupported
}
func (t *Target) Stack() ([]engine.Frame, error)           { return nil, ErrNotSupported }
func (t *Target) Scopes(int) ([]engine.Scope, error)       { return nil, ErrNotSupported }
func (t *Target) Variables(int) ([]engine.Variable, error) { return nil, ErrNotSupported }
func (t *Target) Evaluate(int, string, engine.EvalMode) (engine.Variable, error) {
	return engine.Variable{}, ErrNotSupported
}

var _ engine.Target = (*Target)(nil)
