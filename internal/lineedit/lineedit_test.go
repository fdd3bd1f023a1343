package lineedit

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A pipe writes each prompt, skips a line over the limit with ErrLineTooLong and reads on,
// and counts a last line without a newline.
func TestPipe(t *testing.T) {
	var out strings.Builder
	r := Pipe(strings.NewReader("one\r\n"+strings.Repeat("x", 20)+"\ntwo\nlast"), &out, 10)
	var got []string
	for {
		line, err := r.ReadLine("> ")
		if errors.Is(err, ErrLineTooLong) {
			got = append(got, "<long>")
			continue
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, line)
	}
	if strings.Join(got, "|") != "one|<long>|two|last" {
		t.Errorf("lines %q", got)
	}
	if out.String() != "> > > > > " {
		t.Errorf("prompts %q", out.String())
	}
}

// The history file keeps the last HistorySize lines, is created with its directory, and
// is read back by the next reader.
func TestHistoryFileCap(t *testing.T) {
	file := filepath.Join(t.TempDir(), "state", "polydbg", "history")
	o := Options{HistoryFile: file, HistorySize: 3}
	r := NewTerminal(o)
	for _, c := range []string{"one", "two", "three", "four", "five"} {
		r.Remember(c)
	}
	r.Close()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if got := string(b); got != "three\nfour\nfive\n" {
		t.Errorf("history file = %q", got)
	}
	r2 := NewTerminal(o)
	defer r2.Close()
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
	if got := DefaultHistoryFile("polydbg"); got != "/state/polydbg/history" {
		t.Errorf("with XDG_STATE_HOME: %q", got)
	}
	t.Setenv("XDG_STATE_HOME", "")
	t.Setenv("HOME", "/home/u")
	if got := DefaultHistoryFile("polydbg"); got != "/home/u/.local/state/polydbg/history" {
		t.Errorf("with HOME: %q", got)
	}
	t.Setenv("POLYDBG_HISTORY", "/h")
	if got := DefaultHistoryFile("polydbg"); got != "/h" {
		t.Errorf("with POLYDBG_HISTORY: %q", got)
	}
}
