package launch

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A native program built for another processor is refused by Start before gdbserver runs
// (which said only "Exec format error" through a shell); this machine's own executables and
// files that are no ELF pass the check.
func TestForeignProgramRefused(t *testing.T) {
	fw := filepath.Join(t.TempDir(), "fw.elf")
	h := make([]byte, 52) // a 32-bit little-endian ARM executable's header, nothing else
	copy(h, "\x7fELF\x01\x01\x01")
	binary.LittleEndian.PutUint16(h[16:], 2)  // ET_EXEC
	binary.LittleEndian.PutUint16(h[18:], 40) // EM_ARM
	binary.LittleEndian.PutUint32(h[20:], 1)
	binary.LittleEndian.PutUint16(h[40:], 52)
	if err := os.WriteFile(fw, h, 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := Start(context.Background(), Spec{Program: fw}) // Detect: native
	if err == nil || !strings.Contains(err.Error(), "is a program for ARM, not for this machine") {
		t.Fatalf("Start of an ARM program: %v", err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckRunsHere(self); err != nil {
		t.Errorf("this test's own executable: %v", err)
	}
	if err := CheckRunsHere(filepath.Join("testdata", "nonexistent")); err != nil {
		t.Errorf("a missing file is left to the launch to report: %v", err)
	}
}

// An executable larger than the bound on Kite sources is still recognised as one (sparse here).
func TestDetectLargeExecutable(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big")
	if err := os.WriteFile(big, []byte("\x7fELF\x02\x01\x01"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(big, 65<<20); err != nil {
		t.Fatal(err)
	}
	if k := Detect(big); k != Native {
		t.Errorf("Detect of a 65 MiB ELF = %s, want native", k)
	}
}
