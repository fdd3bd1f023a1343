package lantern

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/polydbg/polydbg/internal/realparts"
	"github.com/polydbg/polydbg/launch/supervise"
)

func TestUploadRunArgsEnv(t *testing.T) {
	dir := programs(t)
	addr, _ := testServer(t, Config{})
	c := dial(t, addr)
	id := c.uploadFile(filepath.Join(dir, "prog"))
	if len(id) != 8 {
		t.Errorf("id %q is not 8 hex digits", id)
	}
	s := c.session("STATUS " + id)
	if s.State != StateLoaded || s.PID != nil || s.DebugPort != nil {
		t.Errorf("fresh session: %+v", s)
	}
	s = c.session("ARGS " + id + " hello  --port 8080 --verbose")
	if s.Args != "hello  --port 8080 --verbose" {
		t.Errorf("args stored as %q", s.Args)
	}
	c.session("ENV " + id + " GREETING=hi=there")
	c.session("ENV " + id + " DROPPED=1")
	s = c.session("ENVDEL " + id + " DROPPED")
	if len(s.Env) != 1 || s.Env["GREETING"] != "hi=there" {
		t.Errorf("env %v", s.Env)
	}
	var env map[string]string
	json.Unmarshal(c.ok("ENVLIST "+id), &env)
	if len(env) != 1 || env["GREETING"] != "hi=there" {
		t.Errorf("ENVLIST %v", env)
	}
	s = c.session("START " + id)
	if s.State != StateRunning || s.PID == nil {
		t.Errorf("started: %+v", s)
	}
	s = c.waitState(id, StateStopped)
	if s.ExitCode == nil || *s.ExitCode != 3 || s.PID != nil {
		t.Errorf("ended: %+v", s)
	}
	out := c.waitOutput(id, "to stderr")
	if !strings.Contains(out, "args: [--port] [8080] [--verbose]\nGREETING=hi=there\n") {
		t.Errorf("output %q", out)
	}
	// A session can be started again; the output goes on after the first run's.
	first, _ := c.Output(id, 0)
	c.session("START " + id)
	c.waitState(id, StateStopped)
	o, _ := c.Output(id, first.Total)
	if o.Offset != first.Total || !strings.Contains(o.Output, "GREETING=hi=there") {
		t.Errorf("second run output %+v", o)
	}
	del := c.ok("DELETE " + id)
	if string(del) != `{"id":"`+id+`","state":"DELETED"}` {
		t.Errorf("DELETE answered %s", del)
	}
	c.fail("STATUS "+id, "not_found")
}

func TestGoProgram(t *testing.T) {
	dir := programs(t)
	addr, _ := testServer(t, Config{})
	c := dial(t, addr)
	id := c.uploadFile(filepath.Join(dir, "gohello.bin"))
	c.session("ARGS " + id + " a b")
	c.session("ENV " + id + " GREETING=gopher")
	c.session("START " + id)
	s := c.waitState(id, StateStopped)
	if s.ExitCode == nil || *s.ExitCode != 0 {
		t.Errorf("ended %+v", s)
	}
	out := c.waitOutput(id, "go env")
	if out != "go args: a,b\ngo env: gopher\n" {
		t.Errorf("output %q", out)
	}
}

func TestOutputOffsetsAndWrap(t *testing.T) {
	dir := programs(t)
	addr, _ := testServer(t, Config{OutputSize: 4096})
	c := dial(t, addr)
	id := c.uploadFile(filepath.Join(dir, "prog"))
	c.session("ARGS " + id + " flood 10000") // 10008 bytes of "line %06d\n"
	c.session("START " + id)
	c.waitState(id, StateStopped)
	o, err := c.Output(id, 0)
	if err != nil {
		t.Fatal(err)
	}
	if o.Total != 10008 || !o.Trimmed || o.Offset != o.Total-4096 || o.Next != o.Total || len(o.Output) != 4096 {
		t.Fatalf("OUTPUT 0 = offset %d total %d next %d trimmed %v len %d", o.Offset, o.Total, o.Next, o.Trimmed, len(o.Output))
	}
	if !strings.HasSuffix(o.Output, "line 000833\n") {
		t.Errorf("output ends %q", o.Output[len(o.Output)-20:])
	}
	o2, _ := c.Output(id, 9999)
	if o2.Trimmed || o2.Offset != 9999 || o2.Output != "e 000833\n" {
		t.Errorf("OUTPUT 9999 = %+v", o2)
	}
	o3, _ := c.Output(id, o.Total)
	if o3.Output != "" || o3.Offset != o.Total {
		t.Errorf("OUTPUT at end = %+v", o3)
	}
	c.fail("OUTPUT "+id+" -5", "invalid_offset")
	c.fail("OUTPUT "+id+" x", "invalid_offset")
}

func readPidFile(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(path)
		if err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				return pid
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s", path)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func processAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i > 0 && len(s) > i+2 && s[i+2] != 'Z'
}

func TestStopAndKillEndGrandchild(t *testing.T) {
	dir := programs(t)
	addr, _ := testServer(t, Config{})
	c := dial(t, addr)
	id := c.uploadFile(filepath.Join(dir, "prog"))
	for _, tc := range []struct{ cmd, signal string }{{"STOP", "SIGTERM"}, {"KILL", "SIGKILL"}} {
		pidFile := filepath.Join(t.TempDir(), "gc.pid")
		c.session("ARGS " + id + " grandchild " + pidFile)
		c.session("START " + id)
		gc := readPidFile(t, pidFile)
		c.waitOutput(id, "ready")
		s := c.session(tc.cmd + " " + id)
		if s.State != StateStopped || s.Signal != tc.signal || s.PID != nil {
			t.Errorf("%s answered %+v", tc.cmd, s)
		}
		deadline := time.Now().Add(5 * time.Second)
		for processAlive(gc) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: grandchild %d still alive", tc.cmd, gc)
			}
			time.Sleep(5 * time.Millisecond)
		}
		c.fail(tc.cmd+" "+id, "not_running")
	}
}

func TestSessionErrors(t *testing.T) {
	dir := programs(t)
	addr, _ := testServer(t, Config{})
	c := dial(t, addr)
	c.fail("STATUS 00000000", "not_found")
	c.fail("START 00000000", "not_found")
	c.fail("FROB", "unknown_command")
	c.fail("START", "invalid_arguments")
	c.fail("START x --fast", "invalid_arguments")
	c.fail("SYSROOT now", "invalid_arguments")
	c.fail("LIST \x01", "invalid_command")
	id := c.uploadFile(filepath.Join(dir, "prog"))
	c.fail("ENV "+id+" NOVALUE", "invalid_env")
	c.fail("ENV "+id+" 1X=2", "invalid_env")
	c.fail("ENV "+id+" A-B=2", "invalid_env")
	c.fail("STOP "+id, "not_running")
	c.fail("KILL "+id, "not_running")
	c.fail("DEBUG "+id, "not_running")
	c.session("ARGS " + id + " sleep")
	c.session("START " + id)
	c.fail("START "+id, "already_running")
	c.fail("DELETE "+id, "session_running")
	c.session("KILL " + id)
	c.ok("DELETE " + id)
	// Blank lines are ignored; lower-case commands and CRLF line ends are accepted.
	c.conn.Write([]byte("\n  \r\nlist\r\n"))
	raw, err := c.answer()
	if err != nil || string(raw) != "[]" {
		t.Errorf("list: %s %v", raw, err)
	}
}

func TestListAndDeps(t *testing.T) {
	dir := programs(t)
	addr, _ := testServer(t, Config{})
	c := dial(t, addr)
	a := c.uploadFile(filepath.Join(dir, "prog"))
	b := c.uploadFile(filepath.Join(dir, "gohello.bin"))
	var list []Session
	json.Unmarshal(c.ok("LIST"), &list)
	if len(list) != 2 || list[0].ID != a || list[1].ID != b {
		t.Errorf("LIST %+v", list)
	}
	var deps Deps
	json.Unmarshal(c.ok("DEPS"), &deps)
	names := map[string]Dep{}
	for _, d := range deps.Deps {
		names[d.Name] = d
	}
	if _, err := exec.LookPath("gdbserver"); err == nil && (!names["gdbserver"].Available || !names["gdbserver"].Required) {
		t.Errorf("DEPS gdbserver %+v", names["gdbserver"])
	}
	if !names["memfd_create"].Available || !deps.AllSatisfied == (names["gdbserver"].Available) {
		t.Errorf("DEPS %+v", deps)
	}
}

// gdbBatch runs gdb -batch with the given commands against a gdbserver port.
func gdbBatch(t *testing.T, binary string, port int, cmds ...string) string {
	t.Helper()
	// The daemon runs on this host: its libraries are this host's (no slow remote reads).
	return gdbBatchSysroot(t, binary, "/", port, cmds...)
}

// gdbBatchSysroot is gdbBatch with gdb's sysroot set first ("" keeps gdb's default).
func gdbBatchSysroot(t *testing.T, binary, sysroot string, port int, cmds ...string) string {
	t.Helper()
	args := []string{"-batch", "-nx", "-ex", "set confirm off", "-ex", "set pagination off"}
	if sysroot != "" {
		args = append(args, "-ex", "set sysroot "+sysroot)
	}
	args = append(args, "-ex", fmt.Sprintf("target remote 127.0.0.1:%d", port))
	for _, c := range cmds {
		args = append(args, "-ex", c)
	}
	args = append(args, binary)
	cmd := exec.Command("gdb", args...)
	done := make(chan struct{})
	var out []byte
	var err error
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("gdb hung: %s", out)
	}
	if err != nil {
		t.Logf("gdb: %v", err)
	}
	return string(out)
}

func TestStartDebugWithGdb(t *testing.T) {
	realparts.Need(t, "gdbserver", "gdb")
	dir := programs(t)
	addr, _ := testServer(t, Config{})
	c := dial(t, addr)
	id := c.uploadFile(filepath.Join(dir, "prog"))
	c.session("ARGS " + id + " work")
	s := c.session("START " + id + " --debug")
	if s.State != StateDebugging || s.DebugPort == nil || s.PID == nil {
		t.Fatalf("START --debug: %+v", s)
	}
	out := gdbBatch(t, filepath.Join(dir, "prog"), *s.DebugPort, "break work", "continue", "print x", "finish", "continue")
	if !strings.Contains(out, "Breakpoint 1, work (x=20)") || !strings.Contains(out, "$1 = 20") || !strings.Contains(out, "Value returned is $2 = 41") {
		t.Errorf("gdb output:\n%s", out)
	}
	s = c.waitState(id, StateStopped)
	if s.DebugPort != nil {
		t.Errorf("debug port kept after the end: %+v", s)
	}
	if o := c.waitOutput(id, "work(20) = 41"); !strings.Contains(o, "Listening on port") {
		t.Errorf("output %q", o)
	}
}

func TestDebugAttachWithGdb(t *testing.T) {
	realparts.Need(t, "gdbserver", "gdb")
	dir := programs(t)
	addr, _ := testServer(t, Config{})
	c := dial(t, addr)
	id := c.uploadFile(filepath.Join(dir, "prog"))
	c.session("ARGS " + id + " loop")
	c.session("START " + id)
	c.waitOutput(id, "ready")
	s := c.session("DEBUG " + id)
	if s.State != StateDebugging || s.DebugPort == nil {
		t.Fatalf("DEBUG: %+v", s)
	}
	c.fail("DEBUG "+id, "already_running")
	out := gdbBatch(t, filepath.Join(dir, "prog"), *s.DebugPort, "break work", "continue", "print x > 0", "print y", "detach")
	if !strings.Contains(out, "Breakpoint 1, work (x=") || !strings.Contains(out, "$1 = 1") {
		t.Errorf("gdb output:\n%s", out)
	}
	// gdb detached: gdbserver ends, the program runs on undisturbed.
	s = c.waitState(id, StateRunning)
	if s.DebugPort != nil {
		t.Errorf("after detach: %+v", s)
	}
	s = c.session("KILL " + id)
	if s.Signal != "SIGKILL" {
		t.Errorf("KILL: %+v", s)
	}
}

func TestKillWhileDebugging(t *testing.T) {
	realparts.Need(t, "gdbserver")
	dir := programs(t)
	addr, _ := testServer(t, Config{})
	c := dial(t, addr)
	id := c.uploadFile(filepath.Join(dir, "prog"))
	c.session("ARGS " + id + " loop")
	s := c.session("START " + id + " --debug")
	inferior := *s.PID
	s = c.session("STOP " + id)
	if s.State != StateStopped {
		t.Errorf("STOP: %+v", s)
	}
	deadline := time.Now().Add(5 * time.Second)
	for processAlive(inferior) {
		if time.Now().After(deadline) {
			t.Fatalf("program %d under gdbserver survived STOP", inferior)
		}
		time.Sleep(5 * time.Millisecond)
	}
	// A debug port is free again: a new debug session gets the first port of the range.
	s2 := c.session("START " + id + " --debug")
	if s2.DebugPort == nil || *s2.DebugPort != *s.DebugPortOr(s2.DebugPort) {
		t.Errorf("second debug run %+v", s2)
	}
	c.session("KILL " + id)
}

// DebugPortOr is a test helper: the session's debug port, or def.
func (s Session) DebugPortOr(def *int) *int {
	if s.DebugPort != nil {
		return s.DebugPort
	}
	return def
}

func TestBundleWithSharedLibrary(t *testing.T) {
	dir := programs(t)
	addr, _ := testServer(t, Config{})
	c := dial(t, addr)
	app, _ := os.ReadFile(filepath.Join(dir, "app"))
	lib, _ := os.ReadFile(filepath.Join(dir, "libgreet.so"))
	archive := makeTarGz(t,
		tarEntry{hdr: dirHeader("my_app/")},
		file("my_app/bin/my_app", 0o755, app),
		file("my_app/lib/libgreet.so.1", 0o644, lib),
		tarEntry{hdr: symlinkHeader("my_app/lib/libgreet.so", "libgreet.so.1")},
	)
	var resp map[string]any
	if _, err := c.conn.Write([]byte(fmt.Sprintf("UPLOAD %d my_app/bin/my_app\n", len(archive)))); err != nil {
		t.Fatal(err)
	}
	c.conn.Write(archive)
	raw, err := c.answer()
	if err != nil {
		t.Fatal(err)
	}
	logExchange(t, fmt.Sprintf("UPLOAD %d my_app/bin/my_app", len(archive)), raw)
	json.Unmarshal(raw, &resp)
	id, _ := resp["id"].(string)
	if resp["state"] != "LOADED" || resp["bundle"] != true || resp["exec_path"] != "my_app/bin/my_app" || resp["size"] != float64(len(archive)) {
		t.Fatalf("bundle upload answered %s", raw)
	}
	// Without the library path the program cannot start its dynamic linking.
	c.session("START " + id)
	s := c.waitState(id, StateStopped)
	if s.ExitCode == nil || *s.ExitCode == 0 {
		t.Errorf("ran without its library: %+v", s)
	}
	c.session("ENV " + id + " LD_LIBRARY_PATH=my_app/lib")
	mark, _ := c.Output(id, 0)
	c.session("START " + id)
	s = c.waitState(id, StateStopped)
	o, _ := c.Output(id, mark.Total)
	if s.ExitCode == nil || *s.ExitCode != 0 || o.Output != "hello from libgreet\n" {
		t.Errorf("with LD_LIBRARY_PATH: %+v %q", s, o.Output)
	}
	st := c.session("STATUS " + id)
	if !st.Bundle || st.ExecPath != "my_app/bin/my_app" {
		t.Errorf("STATUS %+v", st)
	}
}

func TestFiftyConcurrentClients(t *testing.T) {
	dir := programs(t)
	addr, _ := testServer(t, Config{MaxSessions: 64})
	img, _ := os.ReadFile(filepath.Join(dir, "prog"))
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for i := 0; i < 50; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- func() error {
				cl, err := Dial(addr, "", 10*time.Second)
				if err != nil {
					return err
				}
				defer cl.Close()
				cl.conn.SetDeadline(time.Now().Add(60 * time.Second))
				id, err := cl.Upload(bytes.NewReader(img), int64(len(img)), "")
				if err != nil {
					return err
				}
				if _, err := cl.Session(fmt.Sprintf("ARGS %s hello client%d", id, i)); err != nil {
					return err
				}
				if _, err := cl.Session("START " + id); err != nil {
					return err
				}
				for deadline := time.Now().Add(30 * time.Second); ; {
					s, err := cl.Session("STATUS " + id)
					if err != nil {
						return err
					}
					if s.State == StateStopped {
						break
					}
					if time.Now().After(deadline) {
						return fmt.Errorf("client %d: still %s", i, s.State)
					}
					time.Sleep(10 * time.Millisecond)
				}
				o, err := cl.Output(id, 0)
				if err != nil {
					return err
				}
				if want := fmt.Sprintf("args: [client%d]\n", i); !strings.Contains(o.Output, want) {
					return fmt.Errorf("client %d: output %q", i, o.Output)
				}
				_, err = cl.Do("DELETE " + id)
				return err
			}()
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestStalledUploadBlocksNoOne(t *testing.T) {
	dir := programs(t)
	addr, _ := testServer(t, Config{})
	stalled := dial(t, addr)
	img, _ := os.ReadFile(filepath.Join(dir, "prog"))
	fmt.Fprintf(stalled.conn, "UPLOAD %d\n", len(img))
	stalled.conn.Write(img[:len(img)/2]) // and nothing more for now
	c := dial(t, addr)
	id := c.upload(img, "")
	c.session("ARGS " + id + " hello")
	c.session("START " + id)
	c.waitState(id, StateStopped)
	var list []Session
	json.Unmarshal(c.ok("LIST"), &list)
	if len(list) != 1 {
		t.Errorf("LIST shows %d sessions during another upload", len(list))
	}
	stalled.conn.Write(img[len(img)/2:])
	raw, err := stalled.answer()
	if err != nil || !strings.Contains(string(raw), `"state":"LOADED"`) {
		t.Errorf("stalled upload finished with %s %v", raw, err)
	}
}

func TestRestartWithStateDir(t *testing.T) {
	dir := programs(t)
	state := t.TempDir()
	cfg := Config{StateDir: state}
	addr, srv := testServer(t, cfg)
	c := dial(t, addr)
	a := c.uploadFile(filepath.Join(dir, "prog"))
	c.session("ARGS " + a + " sleep")
	c.session("ENV " + a + " GREETING=kept")
	c.session("START " + a)
	c.waitOutput(a, "ready")
	app, _ := os.ReadFile(filepath.Join(dir, "app"))
	lib, _ := os.ReadFile(filepath.Join(dir, "libgreet.so"))
	b := c.upload(makeTarGz(t, file("bin/app", 0o755, app), file("lib/libgreet.so", 0o644, lib)), "bin/app")
	c.session("ENV " + b + " LD_LIBRARY_PATH=lib")
	c.Close()
	srv.Close() // the daemon stops: its programs end with it

	addr2, _ := testServer(t, cfg)
	c2 := dial(t, addr2)
	var list []Session
	json.Unmarshal(c2.ok("LIST"), &list)
	if len(list) != 2 || list[0].ID != a || list[1].ID != b {
		t.Fatalf("after restart LIST = %+v", list)
	}
	if s := list[0]; s.State != StateStopped || s.Ended != "daemon_stopped" || s.Args != "sleep" || s.Env["GREETING"] != "kept" || s.PID != nil {
		t.Errorf("running session after restart: %+v", s)
	}
	if s := list[1]; s.State != StateLoaded || !s.Bundle || s.Env["LD_LIBRARY_PATH"] != "lib" {
		t.Errorf("bundle after restart: %+v", s)
	}
	// Both still run.
	c2.session("ARGS " + a + " hello")
	c2.session("START " + a)
	c2.waitOutput(a, "GREETING=kept")
	c2.session("START " + b)
	c2.waitOutput(b, "hello from libgreet")
	c2.waitState(a, StateStopped)
	c2.waitState(b, StateStopped)
	// DELETE removes the session's files from the state directory.
	c2.ok("DELETE " + a)
	if _, err := os.Stat(filepath.Join(state, "sessions", a)); !os.IsNotExist(err) {
		t.Errorf("deleted session's files remain: %v", err)
	}
}

func TestRestartAfterCrash(t *testing.T) {
	// A daemon that died without Close left a session marked RUNNING, with a program
	// still alive: the next daemon reports it ended and kills the program.
	dir := programs(t)
	state := t.TempDir()
	cfg := Config{StateDir: state}
	srv, err := NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	img, _ := os.ReadFile(filepath.Join(dir, "prog"))
	id := "0badc0de"
	sd := filepath.Join(state, "sessions", id)
	os.MkdirAll(sd, 0o700)
	os.WriteFile(filepath.Join(sd, supervise.ProgramFile), img, 0o600)
	orphan := exec.Command(filepath.Join(dir, "prog"), "sleep")
	orphan.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := orphan.Start(); err != nil {
		t.Fatal(err)
	}
	waited := make(chan struct{})
	go func() { orphan.Wait(); close(waited) }()
	meta := fmt.Sprintf(`{"id":%q,"seq":1,"size":%d,"held":%d,"state":"RUNNING","pid":%d,"pid_start":%q}`,
		id, len(img), len(img), orphan.Process.Pid, supervise.ProcStartTime(orphan.Process.Pid))
	os.WriteFile(filepath.Join(sd, supervise.MetaFile), []byte(meta), 0o600)
	os.MkdirAll(filepath.Join(state, "sessions", "junk"), 0o700) // an upload that never finished
	srv.Close()

	addr, _ := testServer(t, cfg)
	c := dial(t, addr)
	s := c.session("STATUS " + id)
	if s.State != StateStopped || s.Ended != "daemon_restarted" {
		t.Errorf("after crash: %+v", s)
	}
	select {
	case <-waited:
	case <-time.After(5 * time.Second):
		orphan.Process.Kill()
		t.Error("the program left by the crashed daemon was not killed")
	}
	if _, err := os.Stat(filepath.Join(state, "sessions", "junk")); !os.IsNotExist(err) {
		t.Error("incomplete session directory kept")
	}
}
