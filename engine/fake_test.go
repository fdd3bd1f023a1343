package engine

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// fakeTarget is a small program without Kite or gdb: statements 1..lines run in order, the
// whole repeated loops times (i counts the rounds); line printAt prints "round i"; line
// failAt raises an exception. It implements just enough of Target for the session's logic.
type fakeTarget struct {
	file            string
	lines, loops    int
	printAt, failAt int
	signal          string // ends the program by this signal (ReportExit) instead of exit 0
	// libLine is where function "lib" is once Start has loaded its library; before, it
	// binds to a stand-in at line 1 (0: there is no "lib").
	libLine int
	loaded  atomic.Bool
	// libEventAt is the line at which the dynamic linker's event stops a continue, when
	// catching (libFake), with libChanges (a ReasonLibrary stop's Text).
	libEventAt int
	libChanges string
	catchLibs  atomic.Bool
	// execAt is the line at which the program runs a new one (exec) the first time it
	// gets there: its file is /new.fake, its traps gone (0: it never does).
	execAt int
	execed bool

	h     Handler
	cmds  chan ResumeMode
	mu    sync.Mutex
	traps map[int]bool
	i     int // the round, read while stopped
	line  int
	pause atomic.Bool
	term  atomic.Bool
	quit  chan struct{} // closed by Terminate
	once  sync.Once
	done  chan struct{}
}

func newFake(lines, loops int) *fakeTarget {
	return &fakeTarget{file: "/prog.fake", lines: lines, loops: loops, cmds: make(chan ResumeMode),
		traps: map[int]bool{}, quit: make(chan struct{}), done: make(chan struct{})}
}

func (f *fakeTarget) loc(line int) Location {
	return Location{File: f.file, Line: line, Func: "main", PC: uint64(line), HasPC: true}
}

func (f *fakeTarget) Start(h Handler, stopOnEntry bool) error {
	f.h = h
	if ll, ok := h.(LibraryLoads); ok && f.libLine > 0 {
		f.loaded.Store(true)
		ll.LibrariesLoaded()
	}
	go f.run(stopOnEntry)
	return nil
}

func (f *fakeTarget) run(entry bool) {
	defer close(f.done)
	stepping := false
	for i := 0; i < f.loops; i++ {
		for line := 1; line <= f.lines; line++ {
			f.mu.Lock()
			f.i, f.line = i, line
			trap := f.traps[line]
			f.mu.Unlock()
			if f.term.Load() {
				f.h.Terminated()
				return
			}
			var stop *Stop
			switch {
			case line == f.libEventAt && f.catchLibs.Load() && !stepping:
				stop = &Stop{Reason: ReasonLibrary, Text: f.libChanges, Location: f.loc(line)}
			case line == f.execAt && !f.execed:
				f.mu.Lock()
				f.execed, f.file, f.traps = true, "/new.fake", map[int]bool{}
				f.mu.Unlock()
				stop = &Stop{Reason: ReasonExec, Text: "/new.fake", Location: f.loc(line)}
			case entry:
				entry, stop = false, &Stop{Reason: ReasonEntry, Location: f.loc(line)}
			case trap:
				stop = f.h.Trap(f.loc(line))
			}
			if stop == nil && line == f.failAt {
				stop = &Stop{Reason: ReasonException, Location: f.loc(line), Text: "boom"}
			}
			if stop == nil && stepping {
				stop = &Stop{Reason: ReasonStep, Location: f.loc(line)}
			}
			if stop == nil && f.pause.Swap(false) {
				stop = &Stop{Reason: ReasonPause, Location: f.loc(line)}
			}
			if stop != nil {
				f.h.Stopped(*stop)
				var mode ResumeMode
				select {
				case mode = <-f.cmds:
				case <-f.quit:
					f.h.Terminated()
					return
				}
				stepping = mode != Continue
			}
			if line == f.printAt {
				f.h.Output("stdout", fmt.Sprintf("round %d\n", i))
			}
		}
	}
	if f.signal != "" {
		ReportExit(f.h, 128+11, f.signal)
		return
	}
	f.h.Exited(0)
}

func (f *fakeTarget) Resume(mode ResumeMode) error { f.cmds <- mode; return nil }
func (f *fakeTarget) Pause() error                 { f.pause.Store(true); return nil }
func (f *fakeTarget) Terminate() error {
	f.term.Store(true)
	f.once.Do(func() { close(f.quit) })
	return nil
}

func (f *fakeTarget) ResolveLine(file string, line int) (Location, error) {
	if file == "/lib.fake" && f.libLine > 0 && f.loaded.Load() {
		l := f.loc(f.libLine)
		l.File, l.Func = file, "lib"
		return l, nil
	}
	if file == "/lib.fake" && f.libLine > 0 {
		return Location{}, NoSourceFileError{File: file, Libraries: true}
	}
	if file != f.file || line > f.lines {
		return Location{}, fmt.Errorf("no code at %s:%d", file, line)
	}
	return f.loc(line), nil
}

func (f *fakeTarget) ResolveFunction(name string) (Location, error) {
	switch {
	case name == "main":
		return f.loc(1), nil
	case name == "lib" && f.libLine > 0 && f.loaded.Load():
		l := f.loc(f.libLine)
		l.Func = "lib"
		return l, nil
	case name == "lib" && f.libLine > 0:
		l := f.loc(1)
		l.Func, l.StandIn = "lib@plt", true
		return l, nil
	}
	return Location{}, fmt.Errorf("no function %s", name)
}

func (f *fakeTarget) SetTrap(loc Location, on bool) error {
	f.mu.Lock()
	f.traps[loc.Line] = on
	f.mu.Unlock()
	return nil
}

// Conditions are "i == N", "i % N == 0" or "i"; anything else does not compile.
type fakeCond struct {
	f  *fakeTarget
	op string
	n  int
}

func (f *fakeTarget) CompileCondition(_ Location, expr string) (Condition, error) {
	expr = strings.TrimSpace(expr)
	if expr == "i" {
		return fakeCond{f: f, op: "value"}, nil
	}
	for _, op := range []string{"==", "%"} {
		if l, r, ok := strings.Cut(expr, op); ok && strings.TrimSpace(l) == "i" {
			r = strings.TrimSuffix(strings.TrimSpace(r), " == 0")
			n, err := strconv.Atoi(strings.TrimSpace(r))
			if err != nil || n == 0 {
				break
			}
			return fakeCond{f: f, op: op, n: n}, nil
		}
	}
	return nil, fmt.Errorf("cannot compile %q", expr)
}

func (c fakeCond) Eval() (bool, error) {
	i := c.f.i
	switch c.op {
	case "==":
		return i == c.n, nil
	case "%":
		return i%c.n == 0, nil
	}
	return i != 0, nil
}

func (c fakeCond) String() (string, error) { return strconv.Itoa(c.f.i), nil }

func (f *fakeTarget) Stack() ([]Frame, error) {
	return []Frame{{Index: 0, Func: "main", Location: f.loc(f.line)}}, nil
}

func (f *fakeTarget) Scopes(frame int) ([]Scope, error) {
	if frame != 0 {
		return nil, ErrNoFrame
	}
	return []Scope{{Name: "Locals", Ref: 1}}, nil
}

func (f *fakeTarget) Variables(ref int) ([]Variable, error) {
	if ref != 1 {
		return nil, ErrNoVariable
	}
	return []Variable{{Name: "i", Value: strconv.Itoa(f.i), Type: "int"}, {Name: "line", Value: strconv.Itoa(f.line), Type: "int"}}, nil
}

func (f *fakeTarget) Evaluate(frame int, expr string, _ EvalMode) (Variable, error) {
	if frame != 0 {
		return Variable{}, ErrNoFrame
	}
	switch expr {
	case "i":
		return Variable{Name: expr, Value: strconv.Itoa(f.i), Type: "int"}, nil
	case "line":
		return Variable{Name: expr, Value: strconv.Itoa(f.line), Type: "int"}, nil
	}
	return Variable{}, errors.New("unknown name " + expr)
}

func (f *fakeTarget) Close() error { return nil }
