package core

import (
	"bufio"
	"bytes"
	"debug/elf"
	"encoding/binary"
	"fmt"
	"io"
	"strings"
)

// Snapshot is what a core dump of a live x86-64 process holds (gdb's gcore): its threads'
// registers (by gdb's amd64 register names), its memory mappings and their contents, its
// auxiliary vector and command line.
type Snapshot struct {
	PID     int
	Signal  int    // the signal it is stopped by
	Args    string // its command line
	Threads []ThreadRegs
	Auxv    []byte
	Maps    []Mapping // what it has mapped (Path "" for anonymous memory), readable ones only
	// Read reads n bytes of its memory at addr; a mapping it cannot read is written empty.
	Read func(addr uint64, n int) ([]byte, error)
}

// ThreadRegs is one thread's id and registers by name ("rax", "rip", "fs_base"...).
type ThreadRegs struct {
	TID  int
	Regs map[string]uint64
}

// gprNames are user_regs_struct's registers, in its order (NT_PRSTATUS).
var gprNames = [nRegs]string{"r15", "r14", "r13", "r12", "rbp", "rbx", "r11", "r10", "r9", "r8", "rax", "rcx",
	"rdx", "rsi", "rdi", "orig_rax", "rip", "cs", "eflags", "rsp", "ss", "fs_base", "gs_base", "ds", "es", "fs", "gs"}

// readChunk is how much memory is read at a time.
const readChunk = 64 << 10

// Write writes s to w as an ELF core file the kernel could have written: a note segment
// (NT_PRPSINFO, an NT_PRSTATUS per thread, NT_AUXV, NT_FILE), then a PT_LOAD per mapping.
func Write(w io.Writer, s Snapshot) error {
	notes := s.notes()
	const ehsize, phsize = 64, 56
	nph := 1 + len(s.Maps)
	off := uint64(ehsize + phsize*nph)
	var hdr bytes.Buffer
	le := binary.LittleEndian
	ident := [16]byte{0x7f, 'E', 'L', 'F', byte(elf.ELFCLASS64), byte(elf.ELFDATA2LSB), byte(elf.EV_CURRENT)}
	hdr.Write(ident[:])
	for _, v := range []any{uint16(elf.ET_CORE), uint16(elf.EM_X86_64), uint32(elf.EV_CURRENT), uint64(0), uint64(ehsize),
		uint64(0), uint32(0), uint16(ehsize), uint16(phsize), uint16(nph), uint16(0), uint16(0), uint16(0)} {
		binary.Write(&hdr, le, v)
	}
	ph := func(typ elf.ProgType, flags elf.ProgFlag, off, vaddr, filesz, memsz, align uint64) {
		for _, v := range []any{uint32(typ), uint32(flags), off, vaddr, uint64(0), filesz, memsz, align} {
			binary.Write(&hdr, le, v)
		}
	}
	ph(elf.PT_NOTE, 0, off, 0, uint64(len(notes)), 0, 4)
	dataOff := (off + uint64(len(notes)) + 0xfff) &^ 0xfff
	at := dataOff
	for _, m := range s.Maps {
		size := m.End - m.Start
		ph(elf.PT_LOAD, elf.PF_R, at, m.Start, size, size, 0x1000)
		at += size
	}
	bw := bufio.NewWriter(w)
	bw.Write(hdr.Bytes())
	bw.Write(notes)
	bw.Write(make([]byte, dataOff-off-uint64(len(notes))))
	for _, m := range s.Maps {
		for a := m.Start; a < m.End; a += readChunk {
			n := int(min(readChunk, m.End-a))
			b, err := s.Read(a, n)
			if err != nil || len(b) != n { // unreadable: zeros, as a page the kernel skips
				b = make([]byte, n)
			}
			if _, err := bw.Write(b); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// notes are the core's notes.
func (s Snapshot) notes() []byte {
	var b bytes.Buffer
	le := binary.LittleEndian
	note := func(typ uint32, desc []byte) {
		binary.Write(&b, le, uint32(5))
		binary.Write(&b, le, uint32(len(desc)))
		binary.Write(&b, le, typ)
		b.WriteString("CORE\x00\x00\x00\x00")
		b.Write(desc)
		b.Write(make([]byte, (4-len(desc)%4)%4))
	}
	ps := make([]byte, 136) // elf_prpsinfo
	le.PutUint32(ps[prpsinfoPid:], uint32(s.PID))
	args := s.Args
	if len(args) > prpsinfoArgLen-1 {
		args = args[:prpsinfoArgLen-1]
	}
	name := args
	if i := strings.IndexByte(name, ' '); i >= 0 {
		name = name[:i]
	}
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	copy(ps[40:55], name)
	copy(ps[prpsinfoArgs:], args)
	note(ntPrpsinfo, ps)
	for _, th := range s.Threads {
		st := make([]byte, prstatusRegs+nRegs*8+8)          // elf_prstatus: 336 bytes
		le.PutUint16(st[prstatusCursig:], uint16(s.Signal)) // in every thread's, as gdb's gcore writes it (gdb reads the last)
		le.PutUint32(st[prstatusPid:], uint32(th.TID))
		for k, name := range gprNames {
			le.PutUint64(st[prstatusRegs+8*k:], th.Regs[name])
		}
		note(ntPrstatus, st)
	}
	if len(s.Auxv) > 0 {
		note(ntAuxv, s.Auxv)
	}
	var files []Mapping
	for _, m := range s.Maps {
		if strings.HasPrefix(m.Path, "/") {
			files = append(files, m)
		}
	}
	nf := make([]byte, 16, 16+24*len(files))
	le.PutUint64(nf, uint64(len(files)))
	le.PutUint64(nf[8:], 4096)
	for _, m := range files {
		nf = le.AppendUint64(nf, m.Start)
		nf = le.AppendUint64(nf, m.End)
		nf = le.AppendUint64(nf, m.Offset/4096)
	}
	for _, m := range files {
		nf = append(append(nf, m.Path...), 0)
	}
	note(ntFile, nf)
	return b.Bytes()
}

// ParseMaps reads /proc/PID/maps: the readable mappings (not the kernel's [vvar] and
// [vsyscall], which cannot be read through a debugger).
func ParseMaps(maps string) []Mapping {
	var out []Mapping
	for _, line := range strings.Split(maps, "\n") {
		f := strings.Fields(line)
		if len(f) < 5 || !strings.HasPrefix(f[1], "r") {
			continue
		}
		var lo, hi, off uint64
		if _, err := fmt.Sscanf(f[0]+" "+f[2], "%x-%x %x", &lo, &hi, &off); err != nil {
			continue
		}
		path := ""
		if len(f) > 5 {
			path = strings.Join(f[5:], " ")
		}
		if path == "[vvar]" || path == "[vvar_vclock]" || path == "[vsyscall]" {
			continue
		}
		out = append(out, Mapping{Start: lo, End: hi, Offset: off, Path: path})
	}
	return out
}
