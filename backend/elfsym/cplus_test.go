package elfsym

import (
	"encoding/binary"
	"os"
	"testing"
)

// stapNote is one .note.stapsdt note of a 64-bit file: the probe at pc, its provider, name
// and arguments.
func stapNote(pc, base uint64, provider, name, args string) []byte {
	desc := binary.LittleEndian.AppendUint64(nil, pc)
	desc = binary.LittleEndian.AppendUint64(desc, base)
	desc = binary.LittleEndian.AppendUint64(desc, 0)
	desc = append(desc, provider+"\x00"+name+"\x00"+args+"\x00"...)
	for len(desc)%4 != 0 {
		desc = append(desc, 0)
	}
	n := binary.LittleEndian.AppendUint32(nil, 8)
	n = binary.LittleEndian.AppendUint32(n, uint32(len(desc)))
	n = binary.LittleEndian.AppendUint32(n, 3)
	n = append(n, "stapsdt\x00"...)
	return append(n, desc...)
}

// Probe notes are read as SystemTap writes them: the address moved with .stapsdt.base, the
// arguments split; other notes are passed over.
func TestParseStapNotes(t *testing.T) {
	data := append(stapNote(0xa90a1, 0x1c5973, "libstdcxx", "throw", "8@%rdi 8@%rsi"),
		stapNote(0xa7f05, 0x1c5973, "libstdcxx", "catch", "8@%rdx 8@-80(%rbx)")...)
	got := parseStapNotes(data, binary.LittleEndian, 8, 0x1c5983, true)
	if len(got) != 2 || got[0].Name != "throw" || got[0].Addr != 0xa90a1+0x10 || got[1].Args[1] != "8@-80(%rbx)" {
		t.Fatalf("probes: %+v", got)
	}
}

// libstdc++'s own probes, where the machine has it: the three gdb's catch uses.
func TestLibstdcxxProbes(t *testing.T) {
	const lib = "/lib/x86_64-linux-gnu/libstdc++.so.6"
	if _, err := os.Stat(lib); err != nil {
		t.Skip("no libstdc++ here")
	}
	f, err := Open(lib)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"throw", "rethrow", "catch"} {
		if p, ok := f.FindProbe("libstdcxx", name); !ok || p.Addr == 0 || len(p.Args) != 2 {
			t.Errorf("libstdcxx:%s: %+v, %v", name, p, ok)
		}
	}
}

// Any bytes are read or passed over, never a panic.
func FuzzParseStapNotes(f *testing.F) {
	f.Add(stapNote(1, 2, "p", "n", "8@%rdi"), false)
	f.Add([]byte{0xff, 0xff, 0xff, 0x7f, 0, 0, 0, 0, 3, 0, 0, 0}, true)
	f.Add([]byte{}, false)
	f.Fuzz(func(t *testing.T, data []byte, base bool) {
		for _, word := range []int{4, 8} {
			parseStapNotes(data, binary.LittleEndian, word, 0x1000, base)
		}
	})
}

// C++ names from linkage names as gdb shows them: in a frame and with parameters.
func TestLinkageNames(t *testing.T) {
	for linkage, want := range map[string][2]string{
		"_Z5twiceIlET_S0_":        {"twice<long>", "twice<long>(long)"},
		"_ZNK3geo5Shape6scaledEi": {"geo::Shape::scaled", "geo::Shape::scaled(int) const"},
		"_ZN12_GLOBAL__N_13fooEv": {"(anonymous namespace)::foo", "(anonymous namespace)::foo()"},
		"_ZN3geo6SquareC2Ei":      {"geo::Square::Square", "geo::Square::Square(int)"},
	} {
		name, sig, ok := linkageNames(linkage)
		if !ok || name != want[0] || sig != want[1] {
			t.Errorf("linkageNames(%q) = %q, %q, %v; want %q, %q", linkage, name, sig, ok, want[0], want[1])
		}
	}
	if _, _, ok := linkageNames("main"); ok {
		t.Error("main has no linkage name to read")
	}
}

// Any linkage name is read or refused, never a panic; a name read is never empty.
func FuzzLinkageNames(f *testing.F) {
	for _, s := range []string{"_Z5twiceIlET_S0_", "_ZNK3geo5Shape6scaledEi", "_Z", "_ZZ4mainENKUlvE_clEv", "x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if name, sig, ok := linkageNames(s); ok && (name == "" || sig == "") {
			t.Fatalf("linkageNames(%q) = %q, %q", s, name, sig)
		}
		withoutTemplateArgs(s)
		canonicalArgs(s)
	})
}
