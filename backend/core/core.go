// Package core reads the core dump of a Linux x86-64 process (the kernel's, or gdb's
// gcore) and serves it as a GDB stub on loopback (stub.go): the threads' registers, the
// memory (from the dump, or from the files it mapped where the dump left their pages out),
// the auxiliary vector and the libraries, so that the gdbremote backend debugs it as it
// debugs a live program, with nothing to run.
package core

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// Notes of a Linux core file.
const (
	ntPrstatus = 1
	ntFpregset = 2
	ntPrpsinfo = 3
	ntAuxv     = 6
	ntFile     = 0x46494c45
)

// x86-64 layout of the kernel's elf_prstatus and elf_prpsinfo.
const (
	prstatusCursig = 12
	prstatusPid    = 32
	prstatusRegs   = 112
	nRegs          = 27 // user_regs_struct
	prpsinfoPid    = 24
	prpsinfoArgs   = 56
	prpsinfoArgLen = 80
)

// Registers of user_regs_struct, in its order (NT_PRSTATUS).
const (
	rR15 = iota
	rR14
	rR13
	rR12
	rRbp
	rRbx
	rR11
	rR10
	rR9
	rR8
	rRax
	rRcx
	rRdx
	rRsi
	rRdi
	rOrigRax
	rRip
	rCs
	rEflags
	rRsp
	rSs
	rFsBase
	rGsBase
	rDs
	rEs
	rFs
	rGs
)

// Thread is one thread of the dumped process.
type Thread struct {
	TID    int
	Signal int // the signal it was stopped by (the one that ended the process, for the first)
	Regs   [nRegs]uint64
	FP     []byte // the FXSAVE area (NT_FPREGSET): x87, SSE registers and mxcsr; nil when absent
}

// Mapping is a file the process had mapped (NT_FILE).
type Mapping struct {
	Start, End, Offset uint64 // Offset in bytes into the file
	Path               string
}

// segment is a PT_LOAD of the core: memory, of which the first filesz bytes were dumped.
type segment struct {
	vaddr, filesz, memsz, off uint64
}

// File is an open core dump.
type File struct {
	Path     string
	PID      int
	Args     string // the command line, as the kernel kept it (80 bytes at most)
	Threads  []Thread
	Auxv     []byte
	Mappings []Mapping

	f     *os.File
	segs  []segment
	mu    sync.Mutex
	files map[string]*os.File // mapped files, opened when their pages are read
}

// Open reads the core dump at path.
func Open(path string) (*File, error) {
	ef, err := elf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("core: %w", err)
	}
	defer ef.Close()
	if ef.Type != elf.ET_CORE {
		return nil, fmt.Errorf("core: %s is not a core dump (ELF type %v)", path, ef.Type)
	}
	if ef.Machine != elf.EM_X86_64 || ef.Class != elf.ELFCLASS64 {
		return nil, fmt.Errorf("core: %s is a core of %v: only x86-64 cores are read", path, ef.Machine)
	}
	c := &File{Path: path, files: map[string]*os.File{}}
	for _, p := range ef.Progs {
		switch p.Type {
		case elf.PT_LOAD:
			c.segs = append(c.segs, segment{vaddr: p.Vaddr, filesz: p.Filesz, memsz: p.Memsz, off: p.Off})
		case elf.PT_NOTE:
			b, err := io.ReadAll(io.LimitReader(p.Open(), 64<<20))
			if err != nil {
				return nil, fmt.Errorf("core: notes: %w", err)
			}
			if err := c.readNotes(b); err != nil {
				return nil, err
			}
		}
	}
	if len(c.Threads) == 0 {
		return nil, fmt.Errorf("core: %s has no thread (no NT_PRSTATUS note)", path)
	}
	if c.f, err = os.Open(path); err != nil {
		return nil, fmt.Errorf("core: %w", err)
	}
	return c, nil
}

// Close closes the core and the files its memory was read from.
func (c *File) Close() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, f := range c.files {
		if f != nil {
			f.Close()
		}
	}
	c.files = nil
	return c.f.Close()
}

// Signal is the signal that ended the process: the first thread's.
func (c *File) Signal() int { return c.Threads[0].Signal }

var le = binary.LittleEndian

// readNotes reads a PT_NOTE segment's notes.
func (c *File) readNotes(b []byte) error {
	for len(b) >= 12 {
		namesz, descsz, typ := le.Uint32(b), le.Uint32(b[4:]), le.Uint32(b[8:])
		nameEnd := 12 + align4(uint64(namesz))
		descEnd := nameEnd + align4(uint64(descsz))
		if descEnd > uint64(len(b)) || nameEnd+uint64(descsz) > uint64(len(b)) {
			return errors.New("core: a note runs past its segment")
		}
		name := string(bytes.TrimRight(b[12:12+namesz], "\x00"))
		desc := b[nameEnd : nameEnd+uint64(descsz)]
		if name == "CORE" {
			c.note(typ, desc)
		}
		b = b[descEnd:]
	}
	return nil
}

func align4(n uint64) uint64 { return (n + 3) &^ 3 }

// note takes in one note of the kernel's ("CORE").
func (c *File) note(typ uint32, desc []byte) {
	switch typ {
	case ntPrstatus:
		if len(desc) < prstatusRegs+nRegs*8 {
			return
		}
		th := Thread{TID: int(int32(le.Uint32(desc[prstatusPid:]))), Signal: int(le.Uint16(desc[prstatusCursig:]))}
		for i := range th.Regs {
			th.Regs[i] = le.Uint64(desc[prstatusRegs+8*i:])
		}
		c.Threads = append(c.Threads, th)
		if c.PID == 0 {
			c.PID = th.TID // the first thread took the signal; NT_PRPSINFO names the process
		}
	case ntFpregset:
		if n := len(c.Threads); n > 0 && len(desc) >= 512 && c.Threads[n-1].FP == nil {
			c.Threads[n-1].FP = append([]byte(nil), desc[:512]...)
		}
	case ntPrpsinfo:
		if len(desc) >= prpsinfoArgs+prpsinfoArgLen {
			args := desc[prpsinfoArgs : prpsinfoArgs+prpsinfoArgLen]
			c.Args = string(bytes.TrimRight(bytes.TrimRight(args, "\x00"), " "))
			c.PID = int(int32(le.Uint32(desc[prpsinfoPid:])))
		}
	case ntAuxv:
		c.Auxv = append([]byte(nil), desc...)
	case ntFile:
		c.Mappings = parseFileNote(desc)
	}
}

// parseFileNote reads NT_FILE: a count, the page size, count (start, end, page offset)
// triples, then count NUL-terminated paths.
func parseFileNote(desc []byte) []Mapping {
	if len(desc) < 16 {
		return nil
	}
	count, page := le.Uint64(desc), le.Uint64(desc[8:])
	if count > (uint64(len(desc))-16)/24 {
		return nil
	}
	names := desc[16+24*count:]
	out := make([]Mapping, 0, count)
	for i := range count {
		e := desc[16+24*i:]
		end := bytes.IndexByte(names, 0)
		if end < 0 {
			break
		}
		out = append(out, Mapping{Start: le.Uint64(e), End: le.Uint64(e[8:]), Offset: le.Uint64(e[16:]) * page, Path: string(names[:end])})
		names = names[end+1:]
	}
	return out
}

// ErrNoMemory is returned for an address the process did not have mapped.
var ErrNoMemory = errors.New("core: cannot access memory at this address")

// ReadMemory reads n bytes at addr: from the dump, or, where the dump left a file's pages
// out (a program's or library's code), from that file. It returns what it could read from
// addr on, and ErrNoMemory when that is nothing.
func (c *File) ReadMemory(addr uint64, n int) ([]byte, error) {
	out := make([]byte, 0, n)
	for len(out) < n {
		a := addr + uint64(len(out))
		chunk, ok := c.readSome(a, n-len(out))
		if !ok || len(chunk) == 0 {
			break
		}
		out = append(out, chunk...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w (%#x)", ErrNoMemory, addr)
	}
	return out, nil
}

// readSome reads at most n bytes at a, within one segment.
func (c *File) readSome(a uint64, n int) ([]byte, bool) {
	for _, s := range c.segs {
		if a < s.vaddr || a >= s.vaddr+s.memsz {
			continue
		}
		in := a - s.vaddr
		if in < s.filesz { // dumped
			m := min(uint64(n), s.filesz-in)
			b := make([]byte, m)
			k, _ := c.f.ReadAt(b, int64(s.off+in))
			return b[:k], k > 0
		}
		m := min(uint64(n), s.memsz-in)
		if b, ok := c.readMapped(a, int(m)); ok {
			return b, true
		}
		return make([]byte, m), true // not dumped and not a file's: zeros, as gdb reads them
	}
	return nil, false
}

// readMapped reads from the file mapped at a (NT_FILE), within its mapping.
func (c *File) readMapped(a uint64, n int) ([]byte, bool) {
	for _, m := range c.Mappings {
		if a < m.Start || a >= m.End {
			continue
		}
		f := c.mapped(m.Path)
		if f == nil {
			return nil, false
		}
		b := make([]byte, min(uint64(n), m.End-a))
		k, _ := f.ReadAt(b, int64(m.Offset+a-m.Start))
		if k == 0 {
			return nil, false
		}
		return b[:k], true
	}
	return nil, false
}

// mapped opens a mapped file once (nil when it is not on this machine).
func (c *File) mapped(path string) *os.File {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.files == nil {
		return nil
	}
	f, seen := c.files[path]
	if !seen {
		f, _ = os.Open(path)
		c.files[path] = f
	}
	return f
}
