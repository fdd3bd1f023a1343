package gdbremote

import (
	_ "embed"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/polydbg/polydbg/engine"
)

// System call catchpoints (gdb's catch syscall): the stub stops the program at the entry
// and the return of the calls asked for (QCatchSyscalls), which the engine tells as stops.

//go:embed syscalls_amd64.txt
var amd64Syscalls string

// syscallTable is x86-64 Linux's system calls by number and by name.
var syscallTable = sync.OnceValue(func() (t struct {
	names map[int]string
	nums  map[string]int
}) {
	t.names, t.nums = map[int]string{}, map[string]int{}
	for _, line := range strings.Split(amd64Syscalls, "\n") {
		num, name, ok := strings.Cut(strings.TrimSpace(line), " ")
		n, err := strconv.Atoi(num)
		if !ok || err != nil {
			continue
		}
		t.names[n], t.nums[name] = name, n
	}
	return t
})

// SyscallName implements engine.SyscallCatcher: the name of system call n ("" when the
// machine's calls are not known).
func (t *Target) SyscallName(n int) string {
	if t.desc == nil || t.desc.Arch != "i386:x86-64" {
		return ""
	}
	return syscallTable().names[n]
}

// SyscallNumber implements engine.SyscallCatcher: the number of a system call named, or
// given by number.
func (t *Target) SyscallNumber(name string) (int, error) {
	if n, err := strconv.Atoi(name); err == nil && n >= 0 {
		return n, nil
	}
	if t.desc != nil && t.desc.Arch == "i386:x86-64" {
		if n, ok := syscallTable().nums[name]; ok {
			return n, nil
		}
	}
	return 0, fmt.Errorf("Unknown syscall name '%s'.", name)
}

// CatchSyscalls implements engine.SyscallCatcher: from the next continue, stop at the
// entry and return of these calls (of every call with all; of none when calls is empty
// and all is false).
func (t *Target) CatchSyscalls(calls []int, all bool) error {
	if v, _ := t.c.Feature("QCatchSyscalls"); (all || len(calls) > 0) && v != "+" {
		return fmt.Errorf("The stub cannot catch system calls (no QCatchSyscalls).")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.catchCalls, t.catchAll = slices.Clone(calls), all
	slices.Sort(t.catchCalls)
	return nil
}

// syncSyscallCatch tells the stub which calls to stop at before a resume: those asked for
// before a continue, none before a step (a step is not cut short by a call). Nothing is sent
// while it already knows.
func (t *Target) syncSyscallCatch(continuing bool) error {
	t.mu.Lock()
	want := ""
	if continuing && (t.catchAll || len(t.catchCalls) > 0) {
		want = "QCatchSyscalls:1"
		for _, n := range t.catchCalls {
			if !t.catchAll {
				want += fmt.Sprintf(";%x", n)
			}
		}
	}
	sent := t.catchSent
	t.mu.Unlock()
	if want == "" && sent == "" || want == sent {
		return nil
	}
	packet := want
	if want == "" {
		packet = "QCatchSyscalls:0"
	}
	reply, err := t.c.Exchange(t.ctx, packet)
	if err != nil {
		return err
	}
	if reply != "OK" {
		return fmt.Errorf("gdbremote: %s: %q", packet, reply)
	}
	t.mu.Lock()
	t.catchSent = want
	t.mu.Unlock()
	return nil
}

// CatchForks implements engine.ForkCatcher: from the next continue, stop after each fork
// and vfork asked for (the child let go, as without), on stubs that report them.
func (t *Target) CatchForks(forks, vforks bool) error {
	if v, _ := t.c.Feature("fork-events"); forks && v != "+" {
		return fmt.Errorf("The stub cannot catch forks (no fork-events).")
	}
	if v, _ := t.c.Feature("vfork-events"); vforks && v != "+" {
		return fmt.Errorf("The stub cannot catch vforks (no vfork-events).")
	}
	t.mu.Lock()
	t.catchForks, t.catchVforks = forks, vforks
	t.mu.Unlock()
	return nil
}

// forkStop is the stop of a caught fork, nil for another stop reply.
func forkStop(sr StopReply) *engine.Stop {
	child, ok := ForkChild(sr)
	if !ok {
		return nil
	}
	return &engine.Stop{Reason: engine.ReasonFork, Fork: &engine.ForkStop{Child: child, Vfork: sr.Reason == "vfork"}}
}

// syscallStop is the stop of a caught system call, nil for another stop reply.
func (t *Target) syscallStop(sr StopReply) *engine.Stop {
	if sr.Reason != "syscall_entry" && sr.Reason != "syscall_return" {
		return nil
	}
	return &engine.Stop{Reason: engine.ReasonSyscall, Syscall: &engine.SyscallStop{Num: sr.Syscall, Name: t.SyscallName(sr.Syscall),
		Returned: sr.Reason == "syscall_return"}}
}
