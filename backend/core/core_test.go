package core

import (
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// gcoreOf builds src, runs it under gdb until it crashes and dumps its core with gcore.
func gcoreOf(t *testing.T, src string) (exe, core string) {
	t.Helper()
	realparts.Need(t, "gdb", "gcc")
	_, exe = realparts.BuildC(t, "crash", src)
	core = filepath.Join(t.TempDir(), "crash.core")
	if out, err := exec.Command("gdb", "-nx", "-batch", "-ex", "run", "-ex", "gcore "+core, exe).CombinedOutput(); err != nil {
		t.Fatalf("gdb gcore: %v\n%s", err, out)
	}
	return exe, core
}

// A core dump's notes and memory: its threads with their signal and registers, its command
// line, its auxiliary vector, the program's code (read from the executable where a dump
// leaves it out) and the libraries the dynamic linker had loaded.
func TestOpenReadsTheDump(t *testing.T) {
	exe, path := gcoreOf(t, "#include <pthread.h>\n#include <unistd.h>\nvoid *idle(void *a) { for (;;) pause(); return a; }\n"+
		"int main(void) { pthread_t t; pthread_create(&t, 0, idle, 0); usleep(10000); *(volatile int *)0 = 1; return 0; }\n")
	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if len(c.Threads) != 2 || c.Signal() != 11 || c.PID != c.Threads[0].TID || !strings.HasSuffix(c.Args, "crash") {
		t.Fatalf("threads %d, signal %d, pid %d (first thread %d), args %q", len(c.Threads), c.Signal(), c.PID, c.Threads[0].TID, c.Args)
	}
	entry, ok := c.auxv(9)
	if !ok || entry == 0 {
		t.Fatalf("AT_ENTRY %#x, %v", entry, ok)
	}
	code, err := c.ReadMemory(entry, 4)
	if want := entryCode(t, exe); err != nil || string(code) != string(want) {
		t.Errorf("code at the entry point: % x, %v; the program's is % x", code, err, want)
	}
	rip := c.Threads[0].Regs[rRip]
	if _, err := c.ReadMemory(rip, 16); err != nil {
		t.Errorf("code at the crash (%#x): %v", rip, err)
	}
	if _, err := c.ReadMemory(8, 4); err == nil {
		t.Error("memory read at address 8")
	}
	libs := c.LibrariesSVR4(exe)
	if !strings.Contains(libs, "libc.so") || !strings.Contains(libs, `main-lm="0x`) {
		t.Errorf("libraries: %s", libs)
	}
	if len(c.Mappings) == 0 || c.Mappings[0].Path != exe {
		t.Errorf("first mapping %+v, want the program %s", c.Mappings[:min(1, len(c.Mappings))], exe)
	}
}

// entryCode is the first 4 bytes of exe's code at its entry point, from the file.
func entryCode(t *testing.T, exe string) []byte {
	t.Helper()
	f, err := elf.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, s := range f.Sections {
		if f.Entry >= s.Addr && f.Entry+4 <= s.Addr+s.Size && s.Type == elf.SHT_PROGBITS {
			b := make([]byte, 4)
			if _, err := s.ReadAt(b, int64(f.Entry-s.Addr)); err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
	t.Fatal("no section holds the entry point")
	return nil
}

// What is not a core dump of x86-64 is refused, saying why.
func TestOpenRefusesOtherFiles(t *testing.T) {
	exe, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	for path, want := range map[string]string{exe: "is not a core dump", "/nonexistent": "no such file"} {
		if _, err := Open(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Open(%s): %v, want %q", path, err, want)
		}
	}
}

// The stub's answers to a client's packets: registers, memory, threads, the description,
// and refusals of what would run or change the program.
func TestStubAnswers(t *testing.T) {
	c := &File{PID: 0x10, Threads: []Thread{{TID: 0x10, Signal: 11}, {TID: 0x11}}}
	c.Threads[0].Regs[rRip] = 0x401000
	s := &session{core: c}
	for _, tt := range []struct{ in, want string }{
		{"qSupported:multiprocess+;swbreak+", "PacketSize=20000;qXfer:features:read+;qXfer:auxv:read+;qXfer:libraries-svr4:read+;QStartNoAckMode+;multiprocess+"},
		{"?", "T0bthread:p10.10;"},
		{"qfThreadInfo", "mp10.10,p10.11"},
		{"qsThreadInfo", "l"},
		{"p10", "0010400000000000"},
		{"Hgp10.11", "OK"},
		{"qC", "QCp10.11"},
		{"Hgp10.99", "E01"},
		{"m1000,4", "E14"},
		{"mzz", "E01"},
		{"c", "E01"},
		{"vCont;c", "E01"},
		{"M1000,1:00", "E01"},
		{"Z0,401000,1", "OK"},
		{"qXfer:features:read:other.xml:0,10", "E00"},
		{"qXfer:features:read:target.xml:0,5", "m<?xml"},
		{"qXfer:features:read:target.xml:ffffff,5", "l"},
		{"qTStatus", ""},
		{"p999", "E00"},
	} {
		if got, _ := s.answer(tt.in); got != tt.want {
			t.Errorf("%q: answered %q, want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzNotes: no note segment makes the reader panic or read past it.
func FuzzNotes(f *testing.F) {
	f.Add([]byte("\x05\x00\x00\x00\x10\x00\x00\x00\x01\x00\x00\x00CORE\x00\x00\x00\x00" + strings.Repeat("\x00", 16)))
	f.Add([]byte("\x05\x00\x00\x00\x20\x00\x00\x00\x45\x4c\x49\x46CORE\x00\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff\xff\x00\x10"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		c := &File{}
		_ = c.readNotes(b)
		_ = parseFileNote(b)
	})
}

// FuzzStub: no packet makes the stub panic.
func FuzzStub(f *testing.F) {
	for _, s := range []string{"qSupported:multiprocess+", "?", "g", "p", "pffffffff", "m", "m,", "mffffffffffffffff,ffffffff",
		"qXfer:libraries-svr4:read::0,fff", "qXfer:auxv:read::zz,1", "H", "Hg", "T", "Tp.", "qXfer:features:read:target.xml:1,"} {
		f.Add(s)
	}
	c := &File{PID: 1, Threads: []Thread{{TID: 1}}, Auxv: []byte{9, 0, 0, 0, 0, 0, 0, 0, 0, 0x10}}
	f.Fuzz(func(t *testing.T, p string) {
		s := &session{core: c, exe: "/nonexistent"}
		s.answer(p)
	})
}

// What Write writes, Open reads back: the threads with their registers and the signal, the
// command line, the auxiliary vector, the mapped files and the memory; ParseMaps keeps the
// readable mappings but the kernel's own.
func TestWriteReadsBack(t *testing.T) {
	maps := ParseMaps("00400000-00401000 r-xp 00000000 08:01 42 /bin/prog\n00600000-00602000 rw-p 00000000 00:00 0 \n" +
		"7fff0000-7fff1000 ---p 00000000 00:00 0\n7ffff000-7ffff100 r--p 00000000 00:00 0 [vvar]\n")
	if len(maps) != 2 || maps[0].Path != "/bin/prog" || maps[1].Path != "" || maps[1].End != 0x602000 {
		t.Fatalf("maps %+v", maps)
	}
	mem := func(addr uint64, n int) ([]byte, error) {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(addr + uint64(i))
		}
		return b, nil
	}
	snap := Snapshot{PID: 42, Signal: 11, Args: "/bin/prog -x", Maps: maps, Read: mem, Auxv: []byte{9, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0x40, 0, 0, 0, 0, 0},
		Threads: []ThreadRegs{{TID: 42, Regs: map[string]uint64{"rip": 0x400010, "rsp": 0x601000}}, {TID: 43, Regs: map[string]uint64{"rip": 0x400020}}}}
	path := filepath.Join(t.TempDir(), "w.core")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := Write(f, snap); err != nil {
		t.Fatal(err)
	}
	f.Close()
	c, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c.PID != 42 || c.Signal() != 11 || c.Args != "/bin/prog -x" || len(c.Threads) != 2 || c.Threads[1].TID != 43 ||
		c.Threads[0].Regs[rRip] != 0x400010 || c.Threads[0].Regs[rRsp] != 0x601000 || c.Threads[1].Signal != 11 {
		t.Fatalf("read back: pid %d signal %d args %q threads %+v", c.PID, c.Signal(), c.Args, c.Threads)
	}
	if e, ok := c.auxv(9); !ok || e != 0x400010 {
		t.Errorf("AT_ENTRY %#x %v", e, ok)
	}
	if len(c.Mappings) != 1 || c.Mappings[0].Path != "/bin/prog" {
		t.Errorf("mapped files %+v", c.Mappings)
	}
	if b, err := c.ReadMemory(0x600ffe, 4); err != nil || string(b) != string([]byte{0xfe, 0xff, 0x00, 0x01}) {
		t.Errorf("memory across a chunk: % x, %v", b, err)
	}
}
