package gdbcmd

// Threads as gdb shows them: `info threads` lists every thread, by the engine's gdb
// numbers, with the frame it is in, and `thread N` selects one (its stack, variables and
// steps; the others stay stopped).

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/polydbg/polydbg/engine"
)

func (d *Debugger) threads() ([]engine.Thread, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return d.s.Threads(ctx)
}

func cmdInfoThreads(d *Debugger) {
	if d.notStarted("No threads.") {
		return
	}
	ts, err := d.threads()
	if err != nil {
		d.fail("%s\n", explain(err))
		return
	}
	current := d.s.SelectedThread()
	width := len("Target Id") // gdb's column is as wide as its widest entry
	for _, t := range ts {
		width = max(width, len(d.targetID(t)))
	}
	d.printf("  Id   %-*s Frame \n", width, "Target Id")
	for _, t := range ts {
		where := d.threadFrame(t.ID)
		mark := " "
		if t.ID == current {
			mark = "*"
		}
		d.printf("%s %-4s %-*s %s\n", mark, d.s.ThreadLabel(t.ID), width, d.targetID(t), where)
	}
	if current != 0 { // reading the other threads' frames selected them in turn
		if err := d.s.SelectThread(current); err != nil {
			d.fail("%s\n", explain(err))
		}
	}
}

// targetID is gdb's "Target Id" column: the thread's name for the system, and its name:
// the one thread name gave it, else the one the program gave it.
func (d *Debugger) targetID(t engine.Thread) string {
	if name := d.threadNames[t.ID]; name != "" {
		return fmt.Sprintf("%s %q", threadName(t), name)
	}
	if name := systemName(t); name != "" {
		return fmt.Sprintf("%s %q", threadName(t), name)
	}
	return threadName(t)
}

// systemName is the name the program gave thread t (its comm), "" when it has none of its
// own.
func systemName(t engine.Thread) string {
	if t.Name != "" && t.Name != fmt.Sprint(t.ID) && !strings.HasPrefix(t.Name, "thread ") {
		return t.Name
	}
	return ""
}

// threadNameCmd is gdb's thread name [NAME]: the selected thread's name in polydbg's lists
// (without NAME, the program's again).
func (d *Debugger) threadNameCmd(name string) {
	if !d.live() {
		d.fail("No thread selected\n")
		return
	}
	if d.threadNames == nil {
		d.threadNames = map[uint64]string{}
	}
	if name == "" {
		delete(d.threadNames, d.s.SelectedThread())
		return
	}
	d.threadNames[d.s.SelectedThread()] = name
}

// threadFind is gdb's thread find REGEX: each thread whose name, name for the program or
// target id matches.
func (d *Debugger) threadFind(expr string) {
	if expr == "" {
		d.fail("Command requires an argument.\n")
		return
	}
	re, err := compileBRE(expr)
	if err != nil {
		d.fail("Invalid regexp: %v\n", err)
		return
	}
	ts, err := d.threads()
	if err != nil {
		d.fail("%s\n", explain(err))
		return
	}
	match := false
	for _, t := range ts {
		for _, c := range []struct{ what, text string }{{"name", d.threadNames[t.ID]}, {"target name", systemName(t)}, {"target id", threadName(t)}} {
			if c.text != "" && re.MatchString(c.text) {
				d.printf("Thread %d has %s '%s'\n", t.Num, c.what, c.text)
				match = true
			}
		}
	}
	if !match {
		d.printf("No threads match '%s'\n", expr)
	}
}

// threadName is what gdb calls a thread in its messages: "Thread 0x7ffff7d86640 (LWP
// 1235)" when its pthread_t is known (gdb with libthread_db), else "Thread N".
func threadName(t engine.Thread) string {
	if t.Handle != 0 {
		return fmt.Sprintf("Thread %#x (LWP %d)", t.Handle, t.ID)
	}
	return fmt.Sprintf("Thread %d", t.ID)
}

// lwpName names a native thread that starts or ends as gdb does: by its pthread_t and LWP
// when the handle is known, else by its LWP alone (gdb without libthread_db).
func lwpName(t engine.Thread) string {
	if t.Handle != 0 {
		return threadName(t)
	}
	return fmt.Sprintf("LWP %d", t.ID)
}

// thread is the thread of id as the target lists it (its name and handle), or one that
// has only its id when the target lists none.
func (d *Debugger) thread(id uint64) engine.Thread {
	if ts, err := d.threads(); err == nil {
		if i := slices.IndexFunc(ts, func(t engine.Thread) bool { return t.ID == id }); i >= 0 {
			return ts[i]
		}
	}
	return engine.Thread{ID: id}
}

// threadFrame describes the innermost frame of thread id ("func at file:line").
func (d *Debugger) threadFrame(id uint64) string {
	if err := d.s.SelectThread(id); err != nil {
		return explain(err)
	}
	frames, err := d.s.Stack()
	if err != nil {
		return explain(err)
	}
	if len(frames) == 0 {
		return "(no frames)"
	}
	return d.frameLine(frames[0], d.frameMidLine(frames[0]))
}

func cmdThread(d *Debugger, args string) bool {
	args = strings.TrimSpace(args)
	if rest, ok := strings.CutPrefix(args, "apply"); ok && (rest == "" || rest[0] == ' ') {
		d.threadApply(strings.TrimSpace(rest))
		return false
	}
	if rest, ok := strings.CutPrefix(args, "name"); ok && (rest == "" || rest[0] == ' ') {
		d.threadNameCmd(strings.TrimSpace(rest))
		return false
	}
	if rest, ok := strings.CutPrefix(args, "find"); ok && (rest == "" || rest[0] == ' ') {
		d.threadFind(strings.TrimSpace(rest))
		return false
	}
	if args == "" {
		t := engine.Thread{ID: d.s.SelectedThread()}
		if ts, err := d.threads(); err == nil {
			if i := slices.IndexFunc(ts, func(x engine.Thread) bool { return x.ID == t.ID }); i >= 0 {
				t = ts[i] // with its name
			}
		}
		d.printf("[Current thread is %s (%s)]\n", d.s.ThreadLabel(t.ID), threadName(t))
		return false
	}
	n, ok := d.threadNumArg(args)
	if !ok || n < 1 {
		d.fail("Invalid thread ID: %s\n", args)
		return false
	}
	ts, err := d.threads()
	if err != nil {
		d.fail("%s\n", explain(err))
		return false
	}
	i := slices.IndexFunc(ts, func(t engine.Thread) bool { return t.Num == n })
	if i < 0 {
		d.fail("Invalid thread ID: %d\n", n)
		return false
	}
	t := ts[i]
	if err := d.s.SelectThread(t.ID); err != nil {
		d.fail("%s\n", explain(err))
		return false
	}
	d.printf("[Switching to thread %s (%s)]\n", d.s.ThreadLabel(t.ID), threadName(t))
	return d.selectFrame(0)
}

// threadNumArg is the thread number a thread ID names: "N", or "I.N" of the current
// inferior I (gdb's qualified form, once a fork's child was followed).
func (d *Debugger) threadNumArg(arg string) (int, bool) {
	if inf, num, ok := strings.Cut(arg, "."); ok {
		if i, ok := atoi(inf); !ok || i != d.s.Inferior() {
			return 0, false
		}
		arg = num
	}
	return atoi(arg)
}

// threadApply is gdb's thread apply all|N... [FLAGS] COMMAND: the command run in each
// thread named (all of them from the highest number down, as gdb orders them), each under a
// "Thread N (...):" header (apply.go); the selected thread and frame are the same afterwards.
func (d *Debugger) threadApply(args string) {
	ts, err := d.threads()
	if err != nil {
		d.fail("%s\n", explain(err))
		return
	}
	chosen, rest, ok := d.threadsApplied(ts, args)
	if !ok {
		return
	}
	flags, cmd := cutApplyFlags(rest)
	if cmd == "" && strings.HasPrefix(strings.TrimSpace(args), "all") {
		d.fail("Please specify a command at the end of 'thread apply all'\n")
		return
	}
	if cmd == "" {
		d.fail("Please specify a command following the thread ID list\n")
		return
	}
	thread, frame := d.s.SelectedThread(), d.frame
	defer func() {
		if thread != 0 {
			_ = d.s.SelectThread(thread)
		}
		d.frame = frame
	}()
	for _, t := range chosen {
		if err := d.s.SelectThread(t.ID); err != nil {
			d.fail("%s\n", explain(err))
			continue
		}
		d.frame = 0
		if !d.applyOne(flags, fmt.Sprintf("\nThread %s (%s):\n", d.s.ThreadLabel(t.ID), d.targetID(t)), cmd) {
			return
		}
	}
}
