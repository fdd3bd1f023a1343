package launch_test

import (
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// The layers of DESIGN.md, checked on the import graph: protocols reach backends only
// through this package, never import each other, and the engine imports no backend and no
// protocol; backends never import a protocol; gdb's command language (gdbcmd), which
// several protocols offer, stands on the engine and launch alone.
func TestLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "github.com/polydbg/polydbg/...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	const mod = "github.com/polydbg/polydbg/"
	var bad []string
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg := strings.TrimPrefix(fields[0], mod)
		for _, imp := range fields[1:] {
			if !strings.HasPrefix(imp, mod) {
				continue
			}
			dep := strings.TrimPrefix(imp, mod)
			switch {
			case strings.HasPrefix(pkg, "protocol/") && strings.HasPrefix(dep, "backend/") && !pending[pkg+" -> "+dep]:
				bad = append(bad, pkg+" imports "+dep+": protocols reach backends through launch")
			case strings.HasPrefix(pkg, "protocol/") && strings.HasPrefix(dep, "protocol/") && !sameTree(pkg, dep):
				bad = append(bad, pkg+" imports "+dep+": protocols never import each other")
			case (pkg == "engine" || strings.HasPrefix(pkg, "engine/")) && (strings.HasPrefix(dep, "backend/") || strings.HasPrefix(dep, "protocol/") || dep == "launch"):
				bad = append(bad, pkg+" imports "+dep+": the engine knows no backend and no protocol")
			case pkg == "gdbcmd" && (strings.HasPrefix(dep, "backend/") || strings.HasPrefix(dep, "protocol/")):
				bad = append(bad, pkg+" imports "+dep+": gdb's commands, shared by protocols, stand on the engine and launch only")
			case strings.HasPrefix(pkg, "backend/") && (strings.HasPrefix(dep, "protocol/") || dep == "launch" || dep == "gdbcmd"):
				bad = append(bad, pkg+" imports "+dep+": backends never import protocols")
			}
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Error(b)
	}
}

// sameTree: a protocol's own subpackages (protocol/aether/aetherpb).
func sameTree(a, b string) bool {
	root := func(p string) string { return strings.Join(strings.SplitN(p, "/", 3)[:2], "/") }
	return root(a) == root(b)
}

// pending lists the protocols allowed a backend import, with why (none today: the
// debuglantern daemon's supervision lives in launch/supervise).
var pending = map[string]bool{}
