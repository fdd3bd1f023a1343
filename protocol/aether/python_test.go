package aether

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/internal/realparts"
)

// runPythonExample runs the Python example of docs/protocols/aether.md as written, with
// only its port changed, using stubs that grpc_tools generates from protocol/aether/aether.proto.
func runPythonExample(t *testing.T, addr string) {
	t.Helper()
	realparts.Need(t, "/usr/bin/python3")
	realparts.NeedFile(t, "/usr/lib/python3/dist-packages/grpc", "/usr/lib/python3/dist-packages/grpc_tools")
	doc, err := os.ReadFile("../../docs/protocols/aether.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?s)```python\n(.*?)```").FindSubmatch(doc)
	if m == nil {
		t.Fatal("no python example in docs/protocols/aether.md")
	}
	src := string(m[1])
	if !strings.Contains(src, "localhost:50051") {
		t.Fatal("the example does not connect to localhost:50051")
	}
	_, port, _ := strings.Cut(addr, ":")
	src = strings.Replace(src, "localhost:50051", "localhost:"+port, 1)
	dir := t.TempDir()
	proto, _ := filepath.Abs(".")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	gen := exec.CommandContext(ctx, "/usr/bin/python3", "-m", "grpc_tools.protoc", "-I", proto,
		"--python_out="+dir, "--grpc_python_out="+dir, filepath.Join(proto, "aether.proto"))
	if b, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("grpc_tools.protoc: %v\n%s", err, b)
	}
	script := filepath.Join(dir, "example.py")
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	run := exec.CommandContext(ctx, "/usr/bin/python3", script)
	run.Dir = dir
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("the Python example failed: %v\n%s", err, out)
	}
	if !regexp.MustCompile(`(?m)^R0: 0x[0-9a-f]+$`).Match(out) {
		t.Fatalf("the Python example printed %q", out)
	}
}
