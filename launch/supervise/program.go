package supervise

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/polydbg/polydbg/backend/process"
)

// Program is one uploaded program (a memfd) or bundle (a private directory), with what it
// needs to start and what is known of its last run. The exported fields are fixed once the
// upload is complete (the caller fills them while it receives).
type Program struct {
	ID       string
	Seq      uint64 // the order of uploads
	Created  time.Time
	Bundle   bool
	ExecPath string   // bundle: the executable, relative to Dir
	Dir      string   // bundle: the unpacked archive; else ""
	Exe      *os.File // single binary: the sealed memfd
	Size     int64    // bytes uploaded
	Held     int64    // bytes of the caller's budget this program holds

	sup *Supervisor
	out *process.Ring

	saveMu   sync.Mutex     // serializes writes of the program's state files
	watching sync.WaitGroup // the goroutines that record the end of runs

	mu      sync.Mutex
	args    string
	env     map[string]string
	state   string
	run     *run
	exit    *process.Status
	ended   string // why the last run ended when the program did not end it by itself
	deleted bool
}

// NewProgram returns a Loaded program with an empty output ring; the caller fills in its
// image (Exe, or Dir and ExecPath) and then calls SaveNew.
func (s *Supervisor) NewProgram(id string, seq uint64) *Program {
	return &Program{ID: id, Seq: seq, Created: time.Now(), sup: s, out: process.NewRing(s.cfg.OutputSize), state: Loaded}
}

// Snapshot is what is known of a program at one moment.
type Snapshot struct {
	State    string
	Args     string
	Env      map[string]string // a copy; nil when empty
	PID      int               // the running program's pid, 0 when none
	Port     int               // the debug port in use, 0 when none
	ExitCode *int              // how the last run ended: its exit code,
	Signal   string            // or the signal that ended it ("SIGKILL")
	Ended    string            // why the last run ended when the program did not end it
}

// Snapshot returns the program's state, arguments, environment and run.
func (p *Program) Snapshot() Snapshot {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.snapshotLocked()
}

func (p *Program) snapshotLocked() Snapshot {
	v := Snapshot{State: p.state, Args: p.args, Ended: p.ended}
	if len(p.env) > 0 {
		v.Env = p.Env()
	}
	if r := p.run; r != nil {
		v.PID, v.Port = r.pid(), r.port
	}
	if p.exit != nil && p.exit.Signaled() {
		v.Signal = p.exit.SignalName()
	} else if p.exit != nil {
		code := p.exit.Code
		v.ExitCode = &code
	}
	return v
}

// Env returns a copy of the program's environment variables (call with p.mu held, or
// through EnvCopy).
func (p *Program) Env() map[string]string {
	env := make(map[string]string, len(p.env))
	for k, v := range p.env {
		env[k] = v
	}
	return env
}

// EnvCopy returns a copy of the program's environment variables.
func (p *Program) EnvCopy() map[string]string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.Env()
}

// SetArgs sets the arguments of the next runs (split at spaces), and keeps them.
func (p *Program) SetArgs(args string) { p.change(func() { p.args = args }) }

// SetEnv sets one environment variable of the next runs, and keeps it.
func (p *Program) SetEnv(k, v string) {
	p.change(func() {
		if p.env == nil {
			p.env = map[string]string{}
		}
		p.env[k] = v
	})
}

// DelEnv removes one environment variable of the next runs.
func (p *Program) DelEnv(k string) { p.change(func() { delete(p.env, k) }) }

func (p *Program) change(f func()) {
	p.mu.Lock()
	f()
	p.mu.Unlock()
	p.persist()
}

// Output returns the program's output from off on: data really starts at from (later
// than asked when the ring dropped that part, and then trimmed is true); total is all
// the output so far.
func (p *Program) Output(off int64) (data []byte, from, total int64, trimmed bool) {
	return p.out.ReadFrom(off)
}

// environ merges the program's variables into the daemon's environment.
func (p *Program) environ() []string {
	env := os.Environ()
	if len(p.env) == 0 {
		return env
	}
	seen := map[string]bool{}
	out := env[:0:0]
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if v, ok := p.env[k]; ok {
			if !seen[k] {
				out = append(out, k+"="+v)
				seen[k] = true
			}
			continue
		}
		out = append(out, kv)
	}
	keys := make([]string, 0, len(p.env))
	for k := range p.env {
		if !seen[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+p.env[k])
	}
	return out
}

// programSpec says how to run the program (possibly as gdbserver's argument).
func (p *Program) programSpec() process.Spec {
	spec := process.Spec{Env: p.environ(), Args: strings.Fields(p.args), OnOutput: p.onOutput, MergeOutput: true}
	if p.Bundle {
		spec.Path = filepath.Join(p.Dir, filepath.FromSlash(p.ExecPath))
		spec.Dir = p.Dir
	} else {
		spec.Exe = p.Exe
		spec.Argv0 = p.ID
	}
	return spec
}

func (p *Program) onOutput(_ process.Stream, b []byte) { p.out.Write(b) }

// Delete marks a program that does not run as deleted and releases it (see Release).
func (p *Program) Delete() (held int64, err error) {
	p.mu.Lock()
	if p.run != nil {
		p.mu.Unlock()
		return 0, ErrRunning
	}
	p.deleted = true
	p.mu.Unlock()
	return p.Release(), nil
}

// Release frees everything the program holds: its memfd, its files and its state
// directory. It returns the budget bytes it held.
func (p *Program) Release() (held int64) {
	p.saveMu.Lock()
	defer p.saveMu.Unlock()
	p.closeFiles()
	if p.Dir != "" {
		os.RemoveAll(p.Dir)
	}
	if d := p.sup.programDir(p.ID); d != "" {
		os.RemoveAll(d)
	}
	held, p.Held = p.Held, 0
	return held
}

func (p *Program) closeFiles() {
	if p.Exe != nil {
		p.Exe.Close()
	}
}

// Shutdown ends the program's run (reason "daemon_stopped") and closes its files; without
// a state directory it releases everything too, since nothing will bring it back.
func (p *Program) Shutdown() {
	p.End("daemon_stopped", false)
	p.watching.Wait() // a run that ended by itself may still be writing its state
	if p.sup.cfg.StateDir == "" {
		p.Release()
	} else {
		p.closeFiles()
	}
}
