package dap

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
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
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node", err)
	}
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
func runSuite(t *testing.T, suite string, env ...string) {
	node := needNode(t)
	bin := buildPolydbg(t)
	cmd := exec.Command(node, "--test", "--test-reporter=spec", suite)
	cmd.Dir = clientDir
	cmd.Env = append(append(os.Environ(), "POLYDBG="+bin, "TMPDIR="+t.TempDir()), env...)
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("node --test %s: %v", suite, err)
	}
}

func TestDebugClientKite(t *testing.T) { runSuite(t, "kite.test.mjs") }
