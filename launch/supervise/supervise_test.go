package supervise

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// script makes a program whose bundle is a shell script, unpacked in dir.
func script(t *testing.T, s *Supervisor, id, dir, body string) *Program {
	t.Helper()
	p := s.NewProgram(id, 1)
	p.Bundle, p.ExecPath, p.Dir = true, "run.sh", dir
	if err := os.WriteFile(filepath.Join(p.Dir, "run.sh"), []byte("#!/bin/sh\n"+body+"\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	return p
}

func waitState(t *testing.T, p *Program, state string) Snapshot {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		v := p.Snapshot()
		if v.State == state {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("state %s, want %s", v.State, state)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestRunOutputAndEnd: a program runs with its arguments and environment, its output is
// kept, its exit is recorded; a second start while it runs is refused; End stops a
// program that would run forever, and a program that does not run cannot be ended.
func TestRunOutputAndEnd(t *testing.T) {
	s, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	p := script(t, s, "a1", t.TempDir(), `echo "$1 $GREETING"; exit 3`)
	p.SetArgs("hello")
	p.SetEnv("GREETING", "world")
	if _, err := p.Start(false); err != nil {
		t.Fatal(err)
	}
	v := waitState(t, p, Stopped)
	if v.ExitCode == nil || *v.ExitCode != 3 || v.Signal != "" {
		t.Errorf("exit %+v, want code 3", v)
	}
	if data, _, _, _ := p.Output(0); string(data) != "hello world\n" {
		t.Errorf("output %q", data)
	}

	q := script(t, s, "b2", t.TempDir(), "echo ready; exec sleep 60")
	v, err = q.Start(false)
	if err != nil || v.State != Running || v.PID == 0 {
		t.Fatalf("start: %+v %v", v, err)
	}
	if _, err := q.Start(false); err == nil || !strings.Contains(err.Error(), ErrRunning.Error()) {
		t.Errorf("second start: %v", err)
	}
	if _, err := q.Delete(); err != ErrRunning {
		t.Errorf("delete while running: %v", err)
	}
	if !q.End("", false) {
		t.Fatal("End found no run")
	}
	if v := q.Snapshot(); v.State != Stopped || v.Signal != "SIGTERM" {
		t.Errorf("after End: %+v", v)
	}
	if q.End("", true) {
		t.Error("End of a stopped program reported a run")
	}
	if _, err := q.Attach(); err != ErrNotRunning {
		t.Errorf("attach to a stopped program: %v", err)
	}
}

// TestKeptAcrossRestart: a program kept in the state directory comes back with its
// arguments and environment; one that was running is reported ended by the restart.
func TestKeptAcrossRestart(t *testing.T) {
	state := t.TempDir()
	s, err := New(Config{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	dir, err := os.MkdirTemp(s.BundleBase("c3"), "bundle-")
	if err != nil {
		t.Fatal(err)
	}
	p := script(t, s, "c3", dir, "exec sleep 60")
	p.Held = 42
	if err := p.SaveNew(); err != nil {
		t.Fatal(err)
	}
	p.SetArgs("x y")
	p.SetEnv("K", "v")
	if _, err := p.Start(false); err != nil {
		t.Fatal(err)
	}
	pid := p.Snapshot().PID
	p.mu.Lock()
	run := p.run
	p.mu.Unlock()

	// A second supervisor reads the state while the first one's program still runs.
	s2, err := New(Config{StateDir: state})
	if err != nil {
		t.Fatal(err)
	}
	list, err := s2.Load()
	if err != nil || len(list) != 1 {
		t.Fatalf("load: %v %v", list, err)
	}
	q := list[0]
	v := q.Snapshot()
	if q.ID != "c3" || q.Held != 42 || v.Args != "x y" || v.Env["K"] != "v" || v.State != Stopped || v.Ended != "daemon_restarted" {
		t.Errorf("loaded %+v %+v", q, v)
	}
	waitState(t, p, Stopped) // the restart killed the program it found running
	// The first supervisor saves its program's end; a real restart has no first supervisor
	// left, here it must be done writing before the directory is deleted.
	<-run.ended
	if _, err := os.Stat("/proc/" + strconv.Itoa(pid)); err == nil {
		t.Errorf("program %d still alive", pid)
	}
	if held, err := q.Delete(); err != nil || held != 42 {
		t.Errorf("delete: %d %v", held, err)
	}
	if _, err := os.Stat(filepath.Join(state, "sessions", "c3")); !os.IsNotExist(err) {
		t.Errorf("the deleted program's directory remains: %v", err)
	}
}
