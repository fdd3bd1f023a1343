package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The history file keeps the last HistorySize commands, is created with its directory,
// and is read back by the next session.
func TestHistoryFileCap(t *testing.T) {
	file := filepath.Join(t.TempDir(), "state", "polydbg", "history")
	d := &Debugger{cfg: Config{HistoryFile: file, HistorySize: 3}}
	r := newTermReader(d)
	for _, c := range []string{"one", "two", "three", "four", "five"} {
		r.remember(c)
	}
	r.close()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != "three\nfour\nfive\n" {
		t.Errorf("history file = %q", got)
	}
	r2 := newTermReader(d)
	defer r2.close()
	var got strings.Builder
	if _, err := r2.st.WriteHistory(&got); err != nil || got.String() != "three\nfour\nfive\n" {
		t.Errorf("read back %q, %v", got.String(), err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(file), ".history-*")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

func TestDefaultHistoryFile(t *testing.T) {
	t.Setenv("POLYDBG_HISTORY", "")
	t.Setenv("XDG_STATE_HOME", "/state")
	if got := DefaultHistoryFile(); got != "/state/polydbg/history" {
		t.Errorf("with XDG_STATE_HOME: %q", got)
	}
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "/home/u")
	if got := DefaultHistoryFile(); got != "/home/u/.local/state/polydbg/history" {
		t.Errorf("with HOME: %q", got)
	}
	t.Setenv("POLYDBG_HISTORY", "/h")
	if got := DefaultHistoryFile(); got != "/h" {
		t.Errorf("with POLYDBG_HISTORY: %q", got)
	}
}
