package elfsym

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// dwzView is what a reader of the program's DWARF sees: its functions with their lines and
// the types of their variables, its globals and their types, the types it names.
func dwzView(t *testing.T, f *File) []string {
	t.Helper()
	var out []string
	for _, fn := range f.Funcs() {
		params, locals, err := f.FrameVars(fn.Low + f.Bias)
		if err != nil {
			t.Fatalf("%s: %v", fn.Name, err)
		}
		line := fmt.Sprintf("func %s %#x-%#x line %d:", fn.Name, fn.Low, fn.High, fn.Line)
		for _, v := range append(params, locals...) {
			line += fmt.Sprintf(" %s %s;", v.TypeName(), v.Name)
		}
		out = append(out, line)
	}
	for _, v := range f.Globals() {
		out = append(out, fmt.Sprintf("global %s %s", v.TypeName(), v.Name))
	}
	for _, name := range []string{"struct point", "struct shape", "shape_t", "enum colour"} {
		typ, err := f.LookupType(name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, fmt.Sprintf("type %s: %s, %d bytes", name, TypeName(typ), typ.Size()))
	}
	return out
}

// A program whose debug file dwz compressed reads as the same file did before dwz, in each
// way the common file is named: by an installed path found by its build id, by a relative
// path, and by DWARF 5's .debug_sup.
func TestDWZReadsAsBefore(t *testing.T) {
	for _, args := range [][]string{{"-M", "/usr/lib/debug/.dwz/polydbg.debug"}, {"-r"}, {"-5", "-r"}} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			d := realparts.BuildDWZ(t, args...)
			plain, err := OpenWith(d.Exe, DebugDirs{d.PlainDir})
			if err != nil {
				t.Fatal(err)
			}
			defer plain.Close()
			merged, err := OpenWith(d.Exe, DebugDirs{d.DebugDir})
			if err != nil {
				t.Fatal(err)
			}
			defer merged.Close()
			if merged.sections[".debug_info"] == nil || len(merged.Warnings()) != 0 {
				t.Fatalf("the common file was not merged (warnings %q)", merged.Warnings())
			}
			want, got := dwzView(t, plain), dwzView(t, merged)
			if strings.Join(want, "\n") != strings.Join(got, "\n") {
				t.Errorf("after dwz:\n%s\nbefore:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			t.Logf("%d answers as before dwz", len(want))
		})
	}
}

// Without its common file a compressed program is read without DWARF, with gdb's warning.
func TestDWZCommonFileMissing(t *testing.T) {
	d := realparts.BuildDWZ(t, "-r")
	if err := os.Remove(d.Common); err != nil {
		t.Fatal(err)
	}
	f, err := OpenWith(d.Exe, DebugDirs{d.DebugDir})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.DWARF != nil || len(f.Warnings()) != 1 || !strings.HasPrefix(f.Warnings()[0], "could not find '.gnu_debugaltlink' file for "+d.DebugDir) {
		t.Fatalf("DWARF %v, warnings %q", f.DWARF != nil, f.Warnings())
	}
	if fns := f.FuncsNamed("area"); len(fns) != 1 {
		t.Fatalf("area from the symbol table: %v", fns)
	}
	lib := filepath.Join(d.Dir, "libperim.so")
	f.SetDebugDirs(DebugDirs{d.DebugDir})
	if err := f.AddLibrary(lib, 0x7f0000000000); err != nil {
		t.Fatal(err)
	}
	if w := f.TakeLibraryWarnings(); len(w) != 1 || !strings.Contains(w[0], "could not find '.gnu_debugaltlink' file for ") {
		t.Fatalf("library warnings %q", w)
	}
	if w := f.TakeLibraryWarnings(); len(w) != 0 {
		t.Fatalf("told twice: %q", w)
	}
}

// No bytes make the merge panic or loop; what it accepts debug/dwarf can read.
func FuzzMergeSupplementary(f *testing.F) {
	if d := realparts.BuildDWZ(f, "-r"); d.Exe != "" {
		own, sup := sectionsOf(f, filepath.Join(d.DebugDir, ".build-id")), sectionsOf(f, d.Common)
		f.Add(own[".debug_info"], own[".debug_abbrev"], sup[".debug_info"], sup[".debug_abbrev"], sup[".debug_line"])
	}
	f.Add([]byte{7, 0, 0, 0, 4, 0, 0, 0, 0, 0, 8, 1, 0}, []byte{1, 0x11, 0, 3, 0x08, 0, 0, 0}, []byte{}, []byte{}, []byte{})
	f.Fuzz(func(t *testing.T, ownInfo, ownAbbrev, supInfo, supAbbrev, supLine []byte) {
		own := map[string][]byte{".debug_info": ownInfo, ".debug_abbrev": ownAbbrev}
		sup := map[string][]byte{".debug_info": supInfo, ".debug_abbrev": supAbbrev, ".debug_line": supLine}
		merged, err := mergeSupplementary(own, sup, binary.LittleEndian)
		if err != nil {
			return
		}
		if d, err := dwarfFrom(merged); err == nil {
			r := d.Reader()
			for e, err := r.Next(); e != nil && err == nil; e, err = r.Next() {
			}
		}
	})
}

// sectionsOf reads the .debug_ sections of the file at path, or of a debug file that
// names a common file under path when it is a folder.
func sectionsOf(t testing.TB, path string) map[string][]byte {
	t.Helper()
	matches := []string{path}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		matches, _ = filepath.Glob(filepath.Join(path, "*", "*.debug"))
	}
	for _, p := range matches {
		ef, err := elf.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		_, linked := readSupLink(ef)
		secs := debugSections(ef)
		ef.Close()
		if linked || len(matches) == 1 {
			return secs
		}
	}
	t.Fatalf("no debug file naming a common file under %s", path)
	return nil
}
