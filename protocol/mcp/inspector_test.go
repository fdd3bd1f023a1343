package mcp_test

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// inspectorCLI returns the node binary and the inspector's CLI entry that
// scripts/mcp-inspector.sh installed (make deps runs it).
func inspectorCLI(t *testing.T) (node, cli string) {
	dir := os.Getenv("POLYDBG_MCP_TOOLS")
	if dir == "" {
		home, _ := os.UserHomeDir()
		dir = filepath.Join(home, ".cache", "polydbg", "mcp-inspector")
	}
	node = filepath.Join(dir, "node_modules", ".bin", "node")
	cli = filepath.Join(dir, "node_modules", ".bin", "mcp-inspector")
	realparts.NeedFile(t, node, cli)
	return node, cli
}

// inspect runs the official MCP inspector's CLI once and decodes its JSON answer.
func inspect(t *testing.T, args ...string) map[string]any {
	t.Helper()
	node, cli := inspectorCLI(t)
	cmd := exec.Command(node, append([]string{cli, "--cli"}, args...)...)
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(node)+":"+os.Getenv("PATH"))
	out, err := cmd.Output()
	// A tool's error result makes the CLI exit non-zero, after printing the result.
	if _, ok := err.(*exec.ExitError); ok && json.Valid(out) && strings.Contains(string(out), `"isError": true`) {
		err = nil
	}
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("inspector %v: %v\n%s\n%s", args, err, out, stderr)
	}
	var v map[string]any
	if err := json.Unmarshal(out, &v); err != nil {
		t.Fatalf("inspector %v: not JSON: %v\n%s", args, err, out)
	}
	return v
}

// A client no one here wrote: the official inspector's CLI lists the tools and calls
// them, over stdio and over streamable HTTP.
func TestInspectorCLI(t *testing.T) {
	bin := polydbgBin(t)
	src := testdata(t, "average.kite")
	ret := line(t, src, "ret")
	bp := `breakpoints=[{"line":` + strconv.Itoa(ret) + `}]`
	for _, tr := range []string{"stdio", "http"} {
		t.Run(tr, func(t *testing.T) {
			t.Parallel()
			target := []string{bin, "mcp"}
			if tr == "http" {
				target = []string{startHTTP(t), "--transport", "http"}
			}
			list := inspect(t, append(target, "--method", "tools/list")...)
			byName := map[string]any{}
			for _, tool := range get(list, "tools").([]any) {
				byName[str(get(tool, "name"))] = tool
			}
			for _, want := range []string{"start", "continue", "step", "next", "finish", "stepi", "pause", "run_until",
				"set_breakpoint", "evaluate", "read_memory", "write_memory", "registers", "threads", "profile", "gdb"} {
				if byName[want] == nil {
					t.Errorf("tools/list has no %s", want)
				}
			}
			if get(byName["stack"], "annotations", "readOnlyHint") != true || get(byName["write_memory"], "annotations", "destructiveHint") != true {
				t.Errorf("annotations: stack %v, write_memory %v", get(byName["stack"], "annotations"), get(byName["write_memory"], "annotations"))
			}
			if get(byName["start"], "inputSchema", "properties", "program", "type") != "string" {
				t.Errorf("start's input schema: %v", get(byName["start"], "inputSchema"))
			}
			sc := inspect(t, append(target, "--method", "tools/call", "--tool-name", "start",
				"--tool-arg", "program="+src, "--tool-arg", bp)...)
			st := get(sc, "structuredContent")
			if get(st, "reason") != "breakpoint" || get(st, "location", "line") != float64(ret) || get(st, "stack", 0, "func") != "average" {
				t.Fatalf("start through the inspector: %v", sc)
			}
			bad := inspect(t, append(target, "--method", "tools/call", "--tool-name", "continue", "--tool-arg", "session=42")...)
			if get(bad, "isError") != true || !strings.Contains(str(get(bad, "content", 0, "text")), "no session") {
				t.Fatalf("continue on no session: %v", bad)
			}
		})
	}
}

// The MCP conformance suite's server scenarios against the HTTP transport. Those that call
// the reference server's fixture tools and prompts are the expected failures
// (testdata/conformance-baseline.yml); the suite fails on any other.
func TestConformanceSuite(t *testing.T) {
	node, _ := inspectorCLI(t)
	bin := filepath.Join(filepath.Dir(node), "conformance")
	realparts.NeedFile(t, bin)
	endpoint := startHTTP(t)
	cmd := exec.Command(node, bin, "server", "--url", endpoint, "--expected-failures", testdata(t, "conformance-baseline.yml"))
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(node)+":"+os.Getenv("PATH"), "NO_COLOR=1")
	cmd.Dir = t.TempDir()
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("conformance server: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "server-initialize: 1 passed") || !strings.Contains(string(out), "dns-rebinding-protection: 2 passed") {
		t.Fatalf("conformance server did not run the scenarios:\n%s", out)
	}
}
