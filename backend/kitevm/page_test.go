package kitevm_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/engine"
)

// Paging makes only the asked children, of lists, maps and scopes; value texts of big
// containers are previews; completions list the visible names.
func TestVariablesPageAndPreview(t *testing.T) {
	src := "let big = range(0, 1000000)\nlet m = {}\nfor i in range(0, 300) { m[\"k${i}\"] = i }\nlet small = [1, 2]\nlet total = 0\nprint(len(big))\n"
	h := start(t, src, func(h *harness) { h.line(6) }, false)
	h.stop(engine.ReasonBreakpoint, 6)
	scopes, err := h.s.Scopes(0)
	h.do(err)
	globals, err := h.s.VariablesPage(scopes[1].Ref, 0, 0)
	h.do(err)
	byName := map[string]engine.Variable{}
	for _, v := range globals {
		byName[v.Name] = v
	}
	big, m := byName["big"], byName["m"]
	if big.Len != 1000000 || !strings.HasSuffix(big.Value, ", 99, ... 999900 more]") {
		t.Fatalf("big: len %d, value ends %q", big.Len, big.Value[len(big.Value)-30:])
	}
	if !strings.HasSuffix(m.Value, `"k99": 99, ... 200 more}`) || byName["small"].Value != "[1, 2]" {
		t.Fatalf("m %q, small %q", m.Value, byName["small"].Value)
	}
	page, err := h.s.VariablesPage(big.Ref, 999998, 10)
	h.do(err)
	if len(page) != 2 || page[0].Name != "999998" || page[1].Value != "999999" {
		t.Fatalf("last page of big: %+v", page)
	}
	mp, err := h.s.VariablesPage(m.Ref, 150, 2)
	h.do(err)
	if len(mp) != 2 || mp[0].Name != `"k150"` || mp[1].Value != "151" {
		t.Fatalf("map page: %+v", mp)
	}
	sp, err := h.s.VariablesPage(scopes[1].Ref, 1, 1)
	h.do(err)
	if len(sp) != 1 || sp[0].Name != "m" {
		t.Fatalf("scope page: %+v", sp)
	}
	if _, err := h.s.VariablesPage(12345, 0, 1); !errors.Is(err, engine.ErrNoVariable) {
		t.Fatalf("bad ref: %v", err)
	}
	if _, err := h.s.VariablesPage(big.Ref, -1, 1); err == nil {
		t.Fatal("negative start accepted")
	}
	names, n, err := h.s.CompleteExpression(0, "len(s")
	h.do(err)
	if strings.Join(names, ",") != "small" || n != 1 {
		t.Fatalf("completions of s: %v (replacing %d)", names, n)
	}
	h.do(h.s.Continue())
	h.exit(0)
}
