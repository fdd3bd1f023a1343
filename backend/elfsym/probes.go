package elfsym

// SystemTap probes (.note.stapsdt): the places a library marks for debuggers, as libstdc++
// marks where an exception is thrown, rethrown and caught. gdb's catch throw stops at
// libstdc++'s "throw" probe, and so does polydbg's.

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"strings"
)

// Probe is one SystemTap probe point.
type Probe struct {
	Provider, Name string
	Addr           uint64 // link-time
	// Args say where the probe's arguments are at Addr, in the assembler's words:
	// "8@%rdi", "8@-80(%rbx)" (SystemTap's "size@operand").
	Args []string
}

// probes reads the .note.stapsdt notes of the file, adjusted as the notes say when the
// file was prelinked (the .stapsdt.base section moved).
func (f *File) probes() []Probe {
	sec := f.ELF.Section(".note.stapsdt")
	if sec == nil {
		return nil
	}
	data, err := sec.Data()
	if err != nil {
		return nil
	}
	var baseAddr uint64
	hasBase := false
	if b := f.ELF.Section(".stapsdt.base"); b != nil {
		baseAddr, hasBase = b.Addr, true
	}
	word := 8
	if f.ELF.Class == elf.ELFCLASS32 {
		word = 4
	}
	return parseStapNotes(data, f.ELF.ByteOrder, word, baseAddr, hasBase)
}

// parseStapNotes reads SystemTap probe notes from a .note.stapsdt section's bytes, with
// words of the given size; a probe's address moves by where .stapsdt.base is (baseAddr)
// against where the note says it was, when the file has that section.
func parseStapNotes(data []byte, order binary.ByteOrder, word int, baseAddr uint64, hasBase bool) []Probe {
	readWord := func(b []byte) uint64 {
		if word == 4 {
			return uint64(order.Uint32(b))
		}
		return order.Uint64(b)
	}
	align := func(n int) int { return (n + 3) &^ 3 }
	var out []Probe
	for len(data) >= 12 {
		namesz, descsz, typ := int(order.Uint32(data)), int(order.Uint32(data[4:])), order.Uint32(data[8:])
		if namesz < 0 || descsz < 0 || namesz > len(data) || descsz > len(data) {
			break
		}
		next := 12 + align(namesz) + align(descsz)
		if next > len(data) || next <= 0 {
			break
		}
		name := data[12 : 12+namesz]
		desc := data[12+align(namesz) : 12+align(namesz)+descsz]
		data = data[next:]
		if typ != 3 || string(bytes.TrimRight(name, "\x00")) != "stapsdt" || len(desc) < 3*word {
			continue
		}
		pc, base := readWord(desc), readWord(desc[word:])
		strs := bytes.SplitN(desc[3*word:], []byte{0}, 4)
		if len(strs) < 2 {
			continue
		}
		if hasBase {
			pc += baseAddr - base
		}
		p := Probe{Provider: string(strs[0]), Name: string(strs[1]), Addr: pc}
		if len(strs) > 2 {
			p.Args = strings.Fields(string(strs[2]))
		}
		out = append(out, p)
	}
	return out
}

// ProbeAddress is the run-time address of the probe provider:name in the program or in a
// library it has loaded (AddLibrary); false when none has it.
func (f *File) ProbeAddress(provider, name string) (uint64, bool) {
	p, ok := f.FindProbe(provider, name)
	return p.Addr, ok
}

// FindProbe is the probe provider:name of the program or of a library it has loaded, its
// address at run time.
func (f *File) FindProbe(provider, name string) (Probe, bool) {
	files := []*File{f}
	f.libs.mu.Lock()
	for _, l := range f.libs.list {
		files = append(files, l.file())
	}
	f.libs.mu.Unlock()
	for _, lf := range files {
		for _, p := range lf.probes() {
			if p.Provider == provider && p.Name == name {
				p.Addr = lf.clearThumb(p.Addr) + lf.Bias
				return p, true
			}
		}
	}
	return Probe{}, false
}
