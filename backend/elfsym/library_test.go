package elfsym

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A shared object built without -g: its code's place, no debug information; one with -g:
// debug information in the file. The note parser never reads past its bytes.
func TestReadLibraryInfo(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no gcc")
	}
	dir := t.TempDir()
	src := filepath.Join(dir, "l.c")
	if err := os.WriteFile(src, []byte("int twice(int x) { return 2 * x; }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, g := range []bool{false, true} {
		lib := filepath.Join(dir, "l.so")
		args := []string{"-shared", "-fPIC", "-o", lib, src}
		if g {
			args = append(args, "-g")
		}
		if out, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
			t.Fatalf("gcc: %v\n%s", err, out)
		}
		li, err := ReadLibraryInfo(lib, nil)
		if err != nil || li.TextAddr == 0 || li.TextSize == 0 || li.DebugInfo != g {
			t.Errorf("-g %v: %+v %v", g, li, err)
		}
	}
	if _, err := ReadLibraryInfo(filepath.Join(dir, "none.so"), nil); err == nil {
		t.Error("a missing file read")
	}
}

func FuzzNoteDesc(f *testing.F) {
	note := []byte{4, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0, 'G', 'N', 'U', 0, 0xab, 0xcd, 0xef}
	f.Add(note)
	f.Add(note[:14])
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		d := noteDesc(b, binary.LittleEndian)
		if len(d) > 2*len(b) || strings.Trim(d, "0123456789abcdef") != "" {
			t.Fatalf("noteDesc(%x) = %q", b, d)
		}
	})
}

// A .gnu_debuglink section's name and CRC; a name with a folder, without its NUL or without
// the CRC's 4 bytes is none. Any bytes are read without a panic.
func FuzzParseDebugLink(f *testing.F) {
	link := []byte{'p', 'r', 'o', 'g', '.', 'd', 'e', 'b', 'u', 'g', 0, 0, 0x78, 0x56, 0x34, 0x12}
	f.Add(link)
	f.Add(link[:14])
	f.Add([]byte("a/b.debug\x00\x00\x00\x01\x02\x03\x04"))
	f.Add([]byte{0, 1, 2, 3, 4})
	f.Fuzz(func(t *testing.T, b []byte) {
		name, _, ok := parseDebugLink(b, binary.LittleEndian)
		if ok && (name == "" || strings.ContainsAny(name, "/\x00") || len(name)+5 > len(b)) {
			t.Fatalf("parseDebugLink(%q) = %q", b, name)
		}
	})
	if name, crc, ok := parseDebugLink(link, binary.LittleEndian); !ok || name != "prog.debug" || crc != 0x12345678 {
		f.Errorf("prog.debug's link: %q %#x %v", name, crc, ok)
	}
	for _, bad := range [][]byte{link[:14], []byte("a/b.debug\x00\x00\x00\x01\x02\x03\x04"), []byte("nonul")} {
		if _, _, ok := parseDebugLink(bad, binary.LittleEndian); ok {
			f.Errorf("%q read as a link", bad)
		}
	}
}
