package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/polydbg/polydbg/internal/testbin"
)

// TestCommandsRefuseNonRegularFiles: every command that reads a file a user names refuses
// /dev/zero and a FIFO at once with a clear error (issue 12, item 4: `run /dev/zero` used to
// grow by 0.5 GB/s until the machine ran out of memory; a FIFO blocked forever).
func TestCommandsRefuseNonRegularFiles(t *testing.T) {
	bin := testbin.Polydbg(t)
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{"/dev/zero", fifo} {
		for _, args := range [][]string{
			{"run", file}, {"disasm", file}, {"debug", file}, {"aura", "run", file},
			{"prometeu", "run", "--frames", "1", filepath.Dir(file)},
		} {
			if args[0] == "prometeu" && file == "/dev/zero" {
				continue
			}
			if args[0] == "prometeu" {
				// A cartridge whose manifest is a FIFO.
				args[len(args)-1] = cartWithFIFOManifest(t)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
			timedOut := ctx.Err() != nil
			cancel()
			if timedOut {
				t.Fatalf("polydbg %s: still running after 20 s", strings.Join(args, " "))
			}
			if err == nil || !strings.Contains(string(out), "is not a regular file") {
				t.Errorf("polydbg %s: %v, output %q", strings.Join(args, " "), err, out)
			}
		}
	}
}

func cartWithFIFOManifest(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "manifest.json"), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}
