package firmware

// The corpus: testdata/corpus/corpus.c, the C program gdb judges polydbg against, built
// for x86-64 Linux (with native.c: main and a pthreads part) and for Cortex-M3 firmware
// (with startup.c), at each optimisation level, with or without ENTRY in the linker script
// and with or without --gc-sections. Builds are cached for the life of the test process.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// Variant describes one build of the corpus.
type Variant struct {
	Native bool   // x86-64 Linux (gcc) rather than Cortex-M3 (arm-none-eabi-gcc)
	Opt    string // "-O0", "-O1", "-O2", "-Os"
	GC     bool   // -ffunction-sections -fdata-sections -Wl,--gc-sections
	// NoEntry leaves ENTRY out of the firmware's linker script, so e_entry is not
	// Reset_Handler (ld warns and picks the start of .text).
	NoEntry bool
	DWARF4  bool // -gdwarf-4 (.debug_loc, .debug_ranges) rather than the default DWARF 5
}

func (b Variant) String() string {
	s := "fw"
	if b.Native {
		s = "x86-64"
	}
	s += b.Opt
	if b.GC {
		s += "-gc"
	}
	if b.NoEntry {
		s += "-noentry"
	}
	if b.DWARF4 {
		s += "-dwarf4"
	}
	return s
}

// Opts are the optimisation levels the corpus is built at.
var Opts = []string{"-O0", "-O1", "-O2", "-Os"}

// CorpusSource is the path of corpus.c (or of another file of the corpus: native.c,
// startup.c).
func CorpusSource(name string) string { return filepath.Join(Dir(), "corpus", name) }

var corpus struct {
	sync.Mutex
	dir    string
	builds map[Variant]string
}

// BuildCorpus builds the corpus as b describes (once per test process) and returns the
// ELF file's path.
func BuildCorpus(t testing.TB, b Variant) string {
	t.Helper()
	cc := "arm-none-eabi-gcc"
	if b.Native {
		cc = "gcc"
	}
	realparts.Need(t, cc)
	corpus.Lock()
	defer corpus.Unlock()
	if p, ok := corpus.builds[b]; ok {
		return p
	}
	if corpus.dir == "" {
		d, err := os.MkdirTemp("", "polydbg-corpus-")
		if err != nil {
			t.Fatal(err)
		}
		corpus.dir, corpus.builds = d, map[Variant]string{}
	}
	out := filepath.Join(corpus.dir, b.String()+".elf")
	args := []string{"-g", b.Opt, "-o", out}
	if b.DWARF4 {
		args = append(args, "-gdwarf-4")
	}
	if b.GC {
		args = append(args, "-ffunction-sections", "-fdata-sections", "-Wl,--gc-sections")
	}
	if b.Native {
		args = append(args, "-pthread", CorpusSource("corpus.c"), CorpusSource("native.c"))
	} else {
		ld := filepath.Join(Dir(), "link.ld")
		if b.NoEntry {
			src, err := os.ReadFile(ld)
			if err != nil {
				t.Fatal(err)
			}
			var keep []string
			for _, l := range strings.Split(string(src), "\n") {
				if !strings.HasPrefix(l, "ENTRY(") {
					keep = append(keep, l)
				}
			}
			ld = filepath.Join(corpus.dir, "noentry.ld")
			if err := os.WriteFile(ld, []byte(strings.Join(keep, "\n")), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		args = append(args, "-mcpu=cortex-m3", "-mthumb", "-fno-tree-loop-distribute-patterns", "-nostdlib", "-nostartfiles", "-T", ld,
			CorpusSource("corpus.c"), CorpusSource("startup.c"), Startup(), "-lgcc")
	}
	if o, err := exec.Command(cc, args...).CombinedOutput(); err != nil {
		t.Fatalf("%s %s: %v\n%s", cc, strings.Join(args, " "), err, o)
	}
	corpus.builds[b] = out
	return out
}

// CorpusBuilds is every build of the corpus the oracle tests use: each optimisation level
// natively and as firmware, plus the firmware linked the embedded way (--gc-sections,
// no ENTRY), and DWARF 4.
func CorpusBuilds() []Variant {
	var out []Variant
	for _, o := range Opts {
		out = append(out, Variant{Native: true, Opt: o}, Variant{Opt: o}, Variant{Opt: o, GC: true, NoEntry: true})
	}
	return append(out, Variant{Native: true, Opt: "-O2", GC: true},
		Variant{Native: true, Opt: "-O2", DWARF4: true}, Variant{Opt: "-O2", DWARF4: true})
}

// RemoveCorpus deletes the cached builds (call it from TestMain after m.Run).
func RemoveCorpus() {
	corpus.Lock()
	defer corpus.Unlock()
	if corpus.dir != "" {
		os.RemoveAll(corpus.dir)
		corpus.dir, corpus.builds = "", nil
	}
}

// CorpusLine is the line of corpus file name (corpus.c, native.c, startup.c) marked with
// the comment LINE:marker.
func CorpusLine(t testing.TB, name, marker string) int {
	t.Helper()
	return MarkerLine(t, CorpusSource(name), marker)
}
