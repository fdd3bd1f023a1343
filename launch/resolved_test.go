package launch

import (
	"os"
	"path/filepath"
	"testing"
)

// Resolved fills what a client's launch configuration leaves out; Name names the debuggee.
func TestSpecResolvedAndName(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("p.kite", []byte("print(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := Spec{Program: "p.kite"}.Resolved()
	if s.Program != filepath.Join(dir, "p.kite") || s.Kind != Kite || s.Name() != "p.kite" {
		t.Errorf("a Kite file: %+v, name %q", s, s.Name())
	}
	s = Spec{Kind: QEMU, Program: "fw.elf", SVD: "d.svd"}.Resolved()
	if s.ELF != filepath.Join(dir, "fw.elf") || s.SVD != filepath.Join(dir, "d.svd") || s.Name() != "fw.elf" {
		t.Errorf("firmware: %+v", s)
	}
	s = Spec{Kind: Remote, ELF: "/x/fw.elf", Address: "localhost:1234"}.Resolved()
	if s.Program != "" || s.ELF != "/x/fw.elf" || s.Name() != "fw.elf" {
		t.Errorf("a stub with its ELF alone: %+v, name %q", s, s.Name())
	}
	if s := (Spec{}).Resolved(); s.Kind != "" {
		t.Errorf("nothing to debug got kind %q", s.Kind)
	}
}
