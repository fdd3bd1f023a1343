package cli

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
	ts, err := d.threads()
	if err != nil {
		d.printf("%s\n", explain(err))
		return
	}
	current := d.s.SelectedThread()
	d.printf("  Id   Target Id                 Frame\n")
	for _, t := range ts {
		where := d.threadFrame(t.ID)
		mark := " "
		if t.ID == current {
			mark = "*"
		}
		d.printf("%s %-4d %-25s %s\n", mark, t.Num, targetID(t), where)
	}
	if current != 0 { // reading the other threads' frames selected them in turn
		if err := d.s.SelectThread(current); err != nil {
			d.printf("%s\n", explain(err))
		}
	}
}

// targetID is gdb's "Target Id" column: what the system calls the thread.
func targetID(t engine.Thread) string {
	if t.Name != "" && t.Name != fmt.Sprint(t.ID) {
		return fmt.Sprintf("Thread %d %q", t.ID, t.Name)
	}
	return fmt.Sprintf("Thread %d", t.ID)
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
	return d.frameLine(frames[0], false)
}

func cmdThread(d *Debugger, args string) bool {
	args = strings.TrimSpace(args)
	if args == "" {
		id := d.s.SelectedThread()
		d.printf("[Current thread is %d (%s)]\n", d.s.ThreadNum(id), targetID(engine.Thread{ID: id}))
		return false
	}
	n, ok := atoi(args)
	if !ok || n < 1 {
		d.printf("Invalid thread ID: %s\n", args)
		return false
	}
	ts, err := d.threads()
	if err != nil {
		d.printf("%s\n", explain(err))
		return false
	}
	i := slices.IndexFunc(ts, func(t engine.Thread) bool { return t.Num == n })
	if i < 0 {
		d.printf("Invalid thread ID: %d\n", n)
		return false
	}
	t := ts[i]
	if err := d.s.SelectThread(t.ID); err != nil {
		d.printf("%s\n", explain(err))
		return false
	}
	d.printf("[Switching to thread %d (%s)]\n", n, targetID(t))
	return d.selectFrame(0)
}
