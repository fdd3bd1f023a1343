package fileload

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRefusesWhatCannotEnd: /dev/zero, a FIFO without a writer (which would block the
// open), a directory and a file over the cap are refused at once with a clear error; a
// small regular file is read.
func TestRefusesWhatCannotEnd(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, MaxBytes+1); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{"/dev/zero", "is not a regular file"},
		{fifo, "is not a regular file"},
		{dir, "is not a regular file"},
		{big, "is larger than 64 MiB"},
		{filepath.Join(dir, "none"), "no such file"},
	} {
		done := make(chan error, 2)
		go func() {
			_, err := ReadFile(tc.path)
			done <- err
			done <- Check(tc.path)
		}()
		for range 2 {
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Errorf("%s: %v, want %q", tc.path, err, tc.want)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("%s: blocked", tc.path)
			}
		}
	}
	ok := filepath.Join(dir, "ok.kite")
	os.WriteFile(ok, []byte("print(1)\n"), 0o600)
	if b, err := ReadFile(ok); err != nil || string(b) != "print(1)\n" {
		t.Fatalf("%q %v", b, err)
	}
}
