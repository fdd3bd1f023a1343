package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/internal/realparts"
	"github.com/polydbg/polydbg/protocol/lantern"
)

const lanternProg = `#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int work(int x) { return x * 2 + 1; }
int main(int argc, char **argv) {
	setvbuf(stdout, NULL, _IONBF, 0);
	for (int i = 1; i < argc; i++) printf("arg %s\n", argv[i]);
	printf("MODE=%s\n", getenv("MODE") ? getenv("MODE") : "");
	if (getenv("SLOW")) for (int i = 0; i < 5; i++) { printf("tick %d\n", i); usleep(50000); }
	printf("work(20) = %d\n", work(20));
	return 0;
}
`

// buildLanternProg compiles the test program with gcc.
func buildLanternProg(t *testing.T) string {
	t.Helper()
	realparts.Need(t, "gcc")
	dir := t.TempDir()
	src := filepath.Join(dir, "prog.c")
	os.WriteFile(src, []byte(lanternProg), 0o644)
	bin := filepath.Join(dir, "prog")
	if out, err := exec.Command("gcc", "-g", "-O0", "-o", bin, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %s", out)
	}
	return bin
}

func startLanternDaemon(t *testing.T, cfg lantern.Config) string {
	t.Helper()
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	if cfg.DebugPortMin == 0 {
		ln, _ := net.Listen("tcp", "127.0.0.1:0")
		p := ln.Addr().(*net.TCPAddr).Port
		ln.Close()
		cfg.DebugPortMin, cfg.DebugPortMax = p, p+10
	}
	srv, err := lantern.NewServer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { srv.Serve(ctx, ln); close(done) }()
	t.Cleanup(func() { cancel(); <-done; srv.Close() })
	return ln.Addr().String()
}

// lanternRun runs `polydbg lantern --addr ADDR args...` and returns its exit code and output.
func lanternRun(t *testing.T, addr string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := runLantern(context.Background(), append([]string{"--addr", addr}, args...), strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func mustLantern(t *testing.T, addr string, args ...string) string {
	t.Helper()
	code, out, errs := lanternRun(t, addr, args...)
	if code != 0 {
		t.Fatalf("polydbg lantern %v: exit %d\n%s%s", args, code, out, errs)
	}
	return out
}

func TestLanternClientFlow(t *testing.T) {
	bin := buildLanternProg(t)
	addr := startLanternDaemon(t, lantern.Config{})
	id := strings.TrimSpace(mustLantern(t, addr, "push", bin, "--args", "one two", "--env", "MODE=fast", "--env", "SLOW=1", "--start"))
	if len(id) != 8 {
		t.Fatalf("push printed %q", id)
	}
	// logs -f follows the output through OUTPUT offsets until the program ends.
	logs := mustLantern(t, addr, "logs", id, "-f")
	want := "arg one\narg two\nMODE=fast\ntick 0\ntick 1\ntick 2\ntick 3\ntick 4\nwork(20) = 41\n"
	if logs != want {
		t.Errorf("logs -f = %q, want %q", logs, want)
	}
	if out := mustLantern(t, addr, "logs", id); out != want {
		t.Errorf("logs = %q", out)
	}
	ls := mustLantern(t, addr, "ls")
	if !strings.Contains(ls, id) || !strings.Contains(ls, "STOPPED") || !strings.Contains(ls, "one two") {
		t.Errorf("ls:\n%s", ls)
	}
	var s lantern.Session
	json.Unmarshal([]byte(mustLantern(t, addr, "status", id)), &s)
	if s.State != "STOPPED" || s.ExitCode == nil || *s.ExitCode != 0 {
		t.Errorf("status %+v", s)
	}
	if out := mustLantern(t, addr, "env", id, "-SLOW"); out != "MODE=fast\n" {
		t.Errorf("env -SLOW: %q", out)
	}
	if out := mustLantern(t, addr, "env", id, "EXTRA=1"); out != "EXTRA=1\nMODE=fast\n" {
		t.Errorf("env EXTRA=1: %q", out)
	}
	mustLantern(t, addr, "args", id, "again")
	mustLantern(t, addr, "start", id)
	mustLantern(t, addr, "logs", id, "-f")
	if out := mustLantern(t, addr, "logs", id); !strings.Contains(out, "arg again\n") {
		t.Errorf("second run: %q", out)
	}
	if code, _, errs := lanternRun(t, addr, "stop", id); code == 0 || !strings.Contains(errs, "not_running") {
		t.Errorf("stop of an ended session: %d %q", code, errs)
	}
	mustLantern(t, addr, "rm", id)
	if code, _, errs := lanternRun(t, addr, "status", id); code != 1 || !strings.Contains(errs, "not_found: session not found") {
		t.Errorf("status after rm: %d %q", code, errs)
	}
	if code, _, _ := lanternRun(t, addr, "frobnicate"); code != 2 {
		t.Errorf("unknown verb: exit %d", code)
	}
}

func TestLanternPushDirectory(t *testing.T) {
	bin := buildLanternProg(t)
	addr := startLanternDaemon(t, lantern.Config{})
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "bin"), 0o755)
	b, _ := os.ReadFile(bin)
	os.WriteFile(filepath.Join(dir, "bin", "prog"), b, 0o755)
	os.WriteFile(filepath.Join(dir, "README"), []byte("data"), 0o644)
	os.Symlink("bin/prog", filepath.Join(dir, "run"))
	if code, _, errs := lanternRun(t, addr, "push", dir); code != 2 || !strings.Contains(errs, "--exec") {
		t.Errorf("push DIR without --exec: %d %q", code, errs)
	}
	id := strings.TrimSpace(mustLantern(t, addr, "push", dir, "--exec", "bin/prog", "--start"))
	if out := mustLantern(t, addr, "logs", id, "-f"); !strings.Contains(out, "work(20) = 41") {
		t.Errorf("bundle output %q", out)
	}
	var s lantern.Session
	json.Unmarshal([]byte(mustLantern(t, addr, "status", id)), &s)
	if !s.Bundle || s.ExecPath != "bin/prog" {
		t.Errorf("status %+v", s)
	}
}

func TestLanternDepsAndSysroot(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "usr/lib/x86_64-linux-gnu"), 0o755)
	os.WriteFile(filepath.Join(root, "usr/lib/x86_64-linux-gnu/libdemo.so.1"), []byte("\x7fELF demo"), 0o644)
	os.Symlink("usr/lib", filepath.Join(root, "lib"))
	addr := startLanternDaemon(t, lantern.Config{SysrootRoot: root})
	code, out, _ := lanternRun(t, addr, "deps")
	if !strings.Contains(out, "gdbserver") || !strings.Contains(out, "memfd_create") {
		t.Errorf("deps (exit %d):\n%s", code, out)
	}
	dst := filepath.Join(t.TempDir(), "sysroot")
	mustLantern(t, addr, "sysroot", "-o", dst)
	if b, err := os.ReadFile(filepath.Join(dst, "lib/x86_64-linux-gnu/libdemo.so.1")); err != nil || string(b) != "\x7fELF demo" {
		t.Errorf("sysroot content: %q %v", b, err)
	}
	if code, _, _ := lanternRun(t, addr, "sysroot"); code != 2 {
		t.Errorf("sysroot without -o: exit %d", code)
	}
}

func TestLanternGdb(t *testing.T) {
	realparts.Need(t, "gdbserver", "gdb")
	realparts.NeedFile(t, "/lib/x86_64-linux-gnu/libc.so.6", "/lib64/ld-linux-x86-64.so.2")
	bin := buildLanternProg(t)
	// A small sysroot with this host's real C library, laid out like Debian's.
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "usr/lib/x86_64-linux-gnu"), 0o755)
	os.MkdirAll(filepath.Join(root, "lib64"), 0o755)
	os.Symlink("usr/lib", filepath.Join(root, "lib"))
	libc, _ := filepath.EvalSymlinks("/lib/x86_64-linux-gnu/libc.so.6")
	ld, _ := filepath.EvalSymlinks("/lib64/ld-linux-x86-64.so.2")
	os.Symlink(libc, filepath.Join(root, "usr/lib/x86_64-linux-gnu/libc.so.6"))
	os.Symlink(ld, filepath.Join(root, "lib64/ld-linux-x86-64.so.2"))
	addr := startLanternDaemon(t, lantern.Config{SysrootRoot: root})
	t.Setenv("XDG_CACHE_HOME", t.TempDir())

	id := strings.TrimSpace(mustLantern(t, addr, "push", bin, "--debug"))
	out := mustLantern(t, addr, "gdb", id, bin, "--", "-batch", "-nx", "-ex", "break work", "-ex", "continue",
		"-ex", "print x", "-ex", "info sharedlibrary", "-ex", "kill")
	if !strings.Contains(out, "Breakpoint 1, work (x=20)") || !strings.Contains(out, "$1 = 20") ||
		!strings.Contains(out, "lantern-sysroot") {
		t.Errorf("gdb output:\n%s", out)
	}
	// A session that is not running cannot be debugged.
	deadline := time.Now().Add(10 * time.Second)
	for {
		var s lantern.Session
		json.Unmarshal([]byte(mustLantern(t, addr, "status", id)), &s)
		if s.State == "STOPPED" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("session still %s", s.State)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if code, _, errs := lanternRun(t, addr, "gdb", id, bin); code != 1 || !strings.Contains(errs, "start it with") {
		t.Errorf("gdb on a stopped session: %d %q", code, errs)
	}
}

func TestLanternServe(t *testing.T) {
	var errb bytes.Buffer
	if code := runLantern(context.Background(), []string{"serve", "--listen", "0.0.0.0:0"}, nil, io.Discard, &errb); code != 2 ||
		!strings.Contains(errb.String(), "needs --token-file") {
		t.Errorf("serve on 0.0.0.0 without a token: %d %q", code, errb.String())
	}
	tokenFile := filepath.Join(t.TempDir(), "token")
	os.WriteFile(tokenFile, []byte("tok-123\n"), 0o600)
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan int)
	go func() {
		done <- runLantern(ctx, []string{"serve", "--listen", "127.0.0.1:0", "--token-file", tokenFile, "--max-bytes", "1MiB", "--auth-timeout", "300ms"}, nil, io.Discard, pw)
		pw.Close()
	}()
	buf := make([]byte, 200)
	n, _ := pr.Read(buf)
	line := string(buf[:n])
	addr := strings.TrimSpace(strings.TrimPrefix(line, "polydbg lantern: listening on "))
	go io.Copy(io.Discard, pr)
	if code, _, errs := lanternRun(t, addr, "ls"); code == 0 || !strings.Contains(errs, "unauthorized") {
		t.Errorf("ls without the token: %d %q", code, errs)
	}
	if code, out, errs := lanternRun(t, addr, "--token-file", tokenFile, "ls"); code != 0 || !strings.HasPrefix(out, "ID") {
		t.Errorf("ls with the token: %d %q %q", code, out, errs)
	}
	// --auth-timeout: a connection that never authenticates is closed after it.
	silent, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now()
	silent.SetReadDeadline(t0.Add(10 * time.Second))
	io.Copy(io.Discard, silent)
	if waited := time.Since(t0); waited > 5*time.Second {
		t.Errorf("a silent connection was kept %v with --auth-timeout 300ms", waited)
	}
	silent.Close()
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("serve exited %d", code)
	}
}

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"512MiB": 512 << 20, "1048576": 1 << 20, "2GiB": 2 << 30, "10MB": 10e6, "64K": 64 << 10} {
		if got, err := parseBytes(in); err != nil || got != want {
			t.Errorf("%s: %d %v", in, got, err)
		}
	}
	for _, bad := range []string{"", "0", "-1MiB", "lots", "5XB"} {
		if _, err := parseBytes(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
