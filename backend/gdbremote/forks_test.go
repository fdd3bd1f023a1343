package gdbremote

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/realparts"
)

// A child the program forks runs a function with a breakpoint: it is let go without the
// parent's breakpoints (as gdb's detach-on-fork) and ends normally, and the parent still
// stops at that breakpoint. Before, the child inherited the breakpoint instruction
// untraced and died of SIGTRAP ("child killed by signal 5").
func TestForkedChildLetGoWithoutBreakpoints(t *testing.T) {
	realparts.Need(t, "gdbserver")
	prog := buildC(t, nativeFile(t, "fork.c"))
	tg, err := LaunchNative(testCtx(t, 30*time.Second), prog, nil, Config{})
	if err != nil {
		t.Fatal(err)
	}
	x := newSess(t, tg)
	if _, err := x.s.SetBreakpoint(engine.BreakpointSpec{Kind: engine.FunctionBreakpoint, Function: "work"}); err != nil {
		t.Fatal(err)
	}
	if err := x.s.Start(false); err != nil {
		t.Fatal(err)
	}
	st := x.stopped()
	if st.Reason != engine.ReasonBreakpoint || st.Location.Func != "work" {
		t.Fatalf("stopped %+v, want the parent at work", st)
	}
	if got := x.eval("n"); got != "1" {
		t.Errorf("n = %s in the parent's stop, want 1 (the child's call, n = 21, must not stop)", got)
	}
	if err := x.s.Continue(); err != nil {
		t.Fatal(err)
	}
	if e := x.next(engine.EventExited, engine.EventTerminated); e.Kind != engine.EventExited || e.ExitCode != 0 {
		t.Fatalf("the program ended with %v code %d", e.Kind, e.ExitCode)
	}
	tg.stub.DrainOutput()
	if out := tg.stub.Output(); !strings.Contains(out, "child exited 7") {
		t.Errorf("output %q: the child did not end normally", out)
	}
}

// The packets of a fork, against a scripted stub: the client asks for fork events with the
// multiprocess extensions, keeps the program's own thread ids plain, and at the fork
// clears its breakpoint in the child, detaches the child, selects the parent again and
// resumes as it was running; only the program's real end reaches the caller.
func TestClientForkPackets(t *testing.T) {
	s, c, ctx := processStub(t, "", []string{"T05fork:p2b.2b;thread:p1a.1a;", "W00;process:1a"})
	sr, err := c.HaltReason(ctx)
	if err != nil || sr.Thread != "1a" {
		t.Fatalf("halt reason %+v %v: want the thread in plain form", sr, err)
	}
	if _, err := c.SetBreakpoint(ctx, 0x401000, 1); err != nil {
		t.Fatal(err)
	}
	if err := c.Continue(ctx); err != nil {
		t.Fatal(err)
	}
	if sr, err := c.Wait(ctx); err != nil || sr.Kind != StopExited {
		t.Fatalf("wait: %+v %v, want the end", sr, err)
	}
	got := s.commands()
	var qs string
	for _, cmd := range got {
		if strings.HasPrefix(cmd, "qSupported") {
			qs = cmd
		}
	}
	if !strings.Contains(qs, "multiprocess+") || !strings.Contains(qs, "fork-events+") {
		t.Errorf("qSupported %q does not ask for fork events", qs)
	}
	i := slices.Index(got, "Z0,401000,1")
	if i < 0 {
		t.Fatalf("commands %q", got)
	}
	want := []string{"Z0,401000,1", "vCont;c", "Hgp2b.2b", "z0,401000,1", "Hgp1a.1a", "D;2b", "vCont;c"}
	if tail := got[i:]; !slices.Equal(tail, want) {
		t.Errorf("commands %q, want %q", tail, want)
	}
}

// The packets of a vfork, against a scripted stub: the child shares the parent's memory,
// so the breakpoint is cleared in the parent (the stub forgets it there) before the child
// is let go, and inserted again, with its condition, at the parent's vforkdone. Caught
// (catch vfork), the stop is the caller's and the child is held until the program goes
// on; a breakpoint set meanwhile is only noted, and inserted with the others.
func TestClientVforkPackets(t *testing.T) {
	stops := []string{"T05vfork:p2b.2b;thread:p1a.1a;", "T05vforkdone:;thread:p1a.1a;", "T05swbreak:;thread:p1a.1a;",
		"T05vfork:p2c.2c;thread:p1a.1a;", "T05vforkdone:;thread:p1a.1a;", "W00;process:1a"}
	s, c, ctx := processStub(t, ";ConditionalBreakpoints+", stops)
	if _, err := c.SetBreakpoint(ctx, 0x401000, 1, []byte{0x22, 0x01}); err != nil {
		t.Fatal(err)
	}
	if err := c.Continue(ctx); err != nil {
		t.Fatal(err)
	}
	if sr, err := c.Wait(ctx); err != nil || sr.Reason != "swbreak" {
		t.Fatalf("wait: %+v %v, want the breakpoint", sr, err)
	}
	c.CatchForks(false, true)
	if err := c.Continue(ctx); err != nil {
		t.Fatal(err)
	}
	if sr, err := c.Wait(ctx); err != nil || sr.Reason != "vfork" {
		t.Fatalf("wait: %+v %v, want the second vfork", sr, err)
	}
	if _, err := c.SetBreakpoint(ctx, 0x402000, 1); err != nil {
		t.Fatal(err)
	}
	if err := c.Continue(ctx); err != nil {
		t.Fatal(err)
	}
	if sr, err := c.Wait(ctx); err != nil || sr.Kind != StopExited {
		t.Fatalf("wait: %+v %v, want the end", sr, err)
	}
	got := s.commands()
	i := slices.Index(got, "Z0,401000,1;X2,2201")
	if i < 0 {
		t.Fatalf("commands %q", got)
	}
	want := []string{"Z0,401000,1;X2,2201", "vCont;c",
		"Hgp1a.1a", "z0,401000,1", "Hgp1a.1a", "D;2b", "vCont;c", // the first vfork: cleared, the child let go
		"Z0,401000,1;X2,2201", "vCont;c", // its vforkdone: back, with its condition
		"vCont;c", "Hgp1a.1a", "z0,401000,1", "Hgp1a.1a", // the second, caught: the child held
		"D;2c", "vCont;c", // let go as the program goes on; the new breakpoint only noted
		"Z0,401000,1;X2,2201", "Z0,402000,1", "vCont;c"}
	if tail := got[i:]; !slices.Equal(tail, want) {
		t.Errorf("commands\n%q, want\n%q", tail, want)
	}
}

// An exec stop reaches the caller with the program it runs, and the client forgets the
// points it had inserted: the stub dropped them with the old program's memory, so a vfork
// after it clears nothing.
func TestClientExecForgetsPoints(t *testing.T) {
	stops := []string{"T05exec:2f62696e2f74727565;thread:p1a.1a;", "T05vfork:p2b.2b;thread:p1a.1a;", "W00;process:1a"}
	s, c, ctx := processStub(t, ";exec-events+", stops)
	if _, err := c.SetBreakpoint(ctx, 0x401000, 1); err != nil {
		t.Fatal(err)
	}
	if err := c.Continue(ctx); err != nil {
		t.Fatal(err)
	}
	if sr, err := c.Wait(ctx); err != nil || sr.Reason != "exec" || sr.Exec != "/bin/true" {
		t.Fatalf("wait: %+v %v, want the exec of /bin/true", sr, err)
	}
	if err := c.Continue(ctx); err != nil {
		t.Fatal(err)
	}
	if sr, err := c.Wait(ctx); err != nil || sr.Kind != StopExited {
		t.Fatalf("wait: %+v %v, want the end", sr, err)
	}
	for _, cmd := range s.commands() {
		if strings.HasPrefix(cmd, "qSupported") && !strings.Contains(cmd, "exec-events+") {
			t.Errorf("qSupported %q does not ask for exec events", cmd)
		}
		if strings.HasPrefix(cmd, "z0,") {
			t.Errorf("%q cleared a point of the program before the exec", cmd)
		}
	}
}

// processStub is a scripted stub of a process that forks and execs (with features more
// than the multiprocess extensions and fork and vfork events): each continue is answered
// with the next of stops; the client is dialled and has asked why the process stopped.
func processStub(t *testing.T, features string, stops []string) (*fakeStub, *Client, context.Context) {
	s := newFakeStub(t, false, func(cmd string, w *stubWriter) bool {
		switch {
		case cmd == "?":
			w.packet("T05thread:p1a.1a;")
		case strings.HasPrefix(cmd, "Z0,") || strings.HasPrefix(cmd, "z0,") || strings.HasPrefix(cmd, "Hg") || strings.HasPrefix(cmd, "D;"):
			w.packet("OK")
		case cmd == "vCont;c" && len(stops) > 0:
			w.packet(stops[0])
			stops = stops[1:]
		default:
			w.packet("")
		}
		return true
	})
	s.features(";multiprocess+;fork-events+;vfork-events+" + features)
	c := dial(t, s.ln.Addr().String(), Options{FollowForks: true})
	ctx := testCtx(t, 5*time.Second)
	if _, err := c.HaltReason(ctx); err != nil {
		t.Fatal(err)
	}
	return s, c, ctx
}

// A resume command names its threads as the stub must read them: the forking thread's id
// becomes the child's (retarget), and while a vfork's parent is held the program's are
// qualified with its process and the actions for all threads limited to it (forStub).
func TestResumeCommandsAfterAFork(t *testing.T) {
	for cmd, want := range map[string]string{
		"vCont;c": "vCont;c", "vCont;s:1d2a;c": "vCont;s:1d2b;c", "vCont;r10,20:1d2a": "vCont;r10,20:1d2b",
		"vCont;s:77;c": "vCont;s:77;c", "c": "c",
	} {
		if got := retarget(cmd, map[string]string{"1d2a": "1d2b"}); got != want {
			t.Errorf("retarget(%q) = %q, want %q", cmd, got, want)
		}
	}
	c := &Client{}
	if got := c.forStub("vCont;s:1d2b;c"); got != "vCont;s:1d2b;c" {
		t.Errorf("without a held parent: %q", got)
	}
	c.procs.main, c.procs.vforkParent = "1d2b", &vforkParent{pid: 0x1d2a, thread: "p1d2a.1d2a"}
	for cmd, want := range map[string]string{
		"vCont;c": "vCont;c:p1d2b.-1", "vCont;s:1d2b;c": "vCont;s:p1d2b.1d2b;c:p1d2b.-1",
		"vCont;C05:p1d2b.1d2b;c": "vCont;C05:p1d2b.1d2b;c:p1d2b.-1", "c": "c",
	} {
		if got := c.forStub(cmd); got != want {
			t.Errorf("forStub(%q) = %q, want %q", cmd, got, want)
		}
	}
}
