package lantern

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/internal/realparts"
	"github.com/polydbg/polydbg/internal/tarball"
)

func TestSysrootNoLibs(t *testing.T) {
	addr, _ := testServer(t, Config{SysrootRoot: t.TempDir()})
	c := dial(t, addr)
	_, err := c.Sysroot(io.Discard)
	if e, ok := err.(*Error); !ok || e.Code != "sysroot_no_libs" {
		t.Fatalf("got %v", err)
	}
	c.ok("LIST") // still in step
}

func TestSysrootWithGdb(t *testing.T) {
	realparts.Need(t, "gdbserver", "gdb")
	dir := programs(t)
	root, _, _ := realparts.HostRoot(t, true)
	addr, _ := testServer(t, Config{SysrootRoot: root})
	c := dial(t, addr)
	var buf bytes.Buffer
	n, err := c.Sysroot(&buf)
	if err != nil || n != int64(buf.Len()) || n == 0 {
		t.Fatalf("SYSROOT: %d %v", n, err)
	}
	sysroot := t.TempDir()
	if _, err := tarball.Extract(&buf, sysroot, tarball.Limits{}); err != nil {
		t.Fatal(err)
	}
	c.ok("LIST") // the connection is in step after the payload
	id := c.uploadFile(filepath.Join(dir, "prog"))
	c.session("ARGS " + id + " work")
	s := c.session("START " + id + " --debug")
	start := time.Now()
	out := gdbBatchSysroot(t, filepath.Join(dir, "prog"), sysroot, *s.DebugPort, "break work", "continue", "info sharedlibrary", "print x", "kill")
	t.Logf("gdb took %v", time.Since(start))
	if !strings.Contains(out, sysroot+"/lib/x86_64-linux-gnu/libc.so.6") || !strings.Contains(out, "$1 = 20") {
		t.Errorf("gdb did not use the sysroot:\n%s", out)
	}
	if strings.Contains(out, "warning: Unable to find dynamic linker breakpoint") || strings.Contains(out, "Could not load shared library symbols") {
		t.Errorf("gdb complained about the sysroot:\n%s", out)
	}
	c.waitState(id, StateStopped)
}
