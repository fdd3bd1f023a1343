package engine

import (
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
)

type heldSource struct {
	*fakeTarget
	text string
}

func (h heldSource) SourceText(file string) ([]byte, bool) {
	return []byte(h.text), file == "held.kite"
}

// Source reads a file once (later reads see the first text), prefers the text the target
// holds, and refuses what is not a regular file instead of blocking on it.
func TestSourceReadsOnceThroughTheLoader(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "a.c")
	os.WriteFile(file, []byte("int x;\r\nint y;\n"), 0o644)
	s := NewSession(heldSource{newFake(3, 1), "let a = 1\nprint(a)\n"})
	defer s.Close()

	lines, err := s.Source(file)
	if err != nil || !slices.Equal(lines, []string{"int x;", "int y;"}) {
		t.Fatalf("Source = %q, %v", lines, err)
	}
	os.WriteFile(file, []byte("changed\n"), 0o644)
	if again, _ := s.Source(file); !slices.Equal(again, lines) {
		t.Errorf("second read = %q, want the cached %q", again, lines)
	}
	if held, err := s.Source("held.kite"); err != nil || !slices.Equal(held, []string{"let a = 1", "print(a)"}) {
		t.Errorf("held source = %q, %v", held, err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Source(fifo); err == nil {
		t.Error("a FIFO was read as a source")
	}
	if _, err := s.Source(filepath.Join(dir, "missing.c")); err == nil {
		t.Error("a missing file has lines")
	}
}
