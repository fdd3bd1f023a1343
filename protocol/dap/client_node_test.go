package dap

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/polydbg/polydbg/internal/firmware"
	"github.com/polydbg/polydbg/internal/realparts"
)

// clientDir holds the node suites and their npm packages (node_modules is ignored by git
// and installed by scripts/deps.sh).
const clientDir = "testdata/client"

// needNode returns the node binary, installing the npm packages when they are missing. In
// CI a missing part fails the test; elsewhere it skips.
func needNode(t *testing.T) string {
	t.Helper()
	missing := func(what string, err error) {
		t.Helper()
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s: %v (scripts/deps.sh installs it)", what, err)
		}
		t.Skipf("%s: %v (run scripts/deps.sh)", what, err)
	}
	realparts.Need(t, "node", "npm")
	node, _ := exec.LookPath("node")
	if _, err := os.Stat(filepath.Join(clientDir, "node_modules", "@vscode", "debugadapter-testsupport")); err != nil {
		cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund", "--loglevel=error")
		cmd.Dir = clientDir
		if out, err := cmd.CombinedOutput(); err != nil {
			missing("npm ci "+clientDir, fmt.Errorf("%v: %s", err, out))
		}
	}
	return node
}

// buildPolydbg builds the binary the clients start as their debug adapter.
func buildPolydbg(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "polydbg")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/polydbg/polydbg/cmd/polydbg")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// runSuite runs one node:test suite against polydbg dap with VS Code's DebugClient.
func runSuite(t *testing.T, node, bin, suite string, env ...string) {
	t.Helper()
	cmd := exec.Command(node, "--test", "--test-reporter=spec", suite)
	cmd.Dir = clientDir
	cmd.Env = append(append(os.Environ(), "POLYDBG="+bin, "TMPDIR="+t.TempDir()), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node --test %s: %v\n%s", suite, err, out)
	}
	t.Logf("%s", out)
}

// TestDebugClient runs one suite per kind of target, in parallel.
func TestDebugClient(t *testing.T) {
	node := needNode(t)
	bin := buildPolydbg(t)
	t.Run("kite", func(t *testing.T) {
		t.Parallel()
		runSuite(t, node, bin, "kite.test.mjs")
	})
	t.Run("cartridge", func(t *testing.T) {
		t.Parallel()
		cart, err := filepath.Abs("../../examples/cartridges/colorsquare")
		if err != nil {
			t.Fatal(err)
		}
		runSuite(t, node, bin, "cartridge.test.mjs", "CART="+cart)
	})
	t.Run("native", func(t *testing.T) {
		t.Parallel()
		realparts.Need(t, "gcc", "gdbserver")
		src, _ := filepath.Abs(filepath.Join(clientDir, "native.c")) // absolute: the line tables name it so
		exe := filepath.Join(t.TempDir(), "native")
		if out, err := exec.Command("gcc", "-g", "-O0", "-o", exe, src).CombinedOutput(); err != nil {
			t.Fatalf("gcc: %v\n%s", err, out)
		}
		runSuite(t, node, bin, "native.test.mjs", "NATIVE_EXE="+exe, "NATIVE_SRC="+src)
	})
	t.Run("qemu", func(t *testing.T) {
		t.Parallel()
		realparts.Need(t, "qemu-system-arm")
		elf := firmware.Build(t)
		runSuite(t, node, bin, "qemu.test.mjs", "FW_ELF="+elf, "FW_SRC="+firmware.Source())
	})
}
