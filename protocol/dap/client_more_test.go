package dap

import (
	"testing"
)

// TestDebugClientMore runs the suites of goto, data breakpoints, threads, modules,
// peripherals, disassembly of Kite files, cwd/env and detach, per kind of target.
func TestDebugClientMore(t *testing.T) {
	node := needNode(t)
	bin := buildPolydbg(t)
	t.Run("kite", func(t *testing.T) {
		t.Parallel()
		runSuite(t, node, bin, "kite_more.test.mjs")
	})
}
