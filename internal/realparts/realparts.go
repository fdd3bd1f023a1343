// Package realparts lets tests demand the real programs they run (gdbserver, QEMU, gcc...).
// Outside CI a missing part skips the test with the install hint; in CI (CI=true) it fails
// it, because DESIGN.md forbids a silent skip there. `make deps` installs every part.
package realparts

import (
	"os"
	"os/exec"
	"testing"
)

// Need marks the test as needing each named program on PATH (or an absolute path).
func Need(t testing.TB, programs ...string) {
	t.Helper()
	for _, p := range programs {
		if _, err := exec.LookPath(p); err == nil {
			continue
		}
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not installed; run `make deps` (scripts/deps.sh)", p)
		}
		t.Skipf("%s is not installed; run `make deps` (scripts/deps.sh)", p)
	}
}

// NeedFile is Need for parts that are files rather than programs (a library, a module dir).
func NeedFile(t testing.TB, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if _, err := os.Stat(p); err == nil {
			continue
		}
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is missing; run `make deps` (scripts/deps.sh)", p)
		}
		t.Skipf("%s is missing; run `make deps` (scripts/deps.sh)", p)
	}
}
