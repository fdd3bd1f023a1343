package launch

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// A program named without a slash is found on PATH as a shell finds it; a path is made
// absolute.
func TestProgramPath(t *testing.T) {
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh on PATH")
	}
	if got := ProgramPath("sh"); got != sh {
		t.Errorf("ProgramPath(sh) = %q, want %q", got, sh)
	}
	want, _ := filepath.Abs("bin/prog")
	if got := ProgramPath("./bin/prog"); got != want {
		t.Errorf("ProgramPath(./bin/prog) = %q, want %q", got, want)
	}
	if got := ProgramPath(""); got != "" {
		t.Errorf("ProgramPath(\"\") = %q", got)
	}
}
