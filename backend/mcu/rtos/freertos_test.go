package rtos

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/internal/firmware"
	"github.com/polydbg/polydbg/internal/realparts"
)

// image is the data and bss of a program as they were in memory.
type image struct {
	base uint64
	data []byte
}

func (m *image) ReadMemory(addr uint64, n int) ([]byte, error) {
	if addr < m.base || addr+uint64(n) > m.base+uint64(len(m.data)) {
		return nil, fmt.Errorf("no memory at %#x+%d", addr, n)
	}
	return m.data[addr-m.base : addr-m.base+uint64(n)], nil
}

// kernel builds testdata/kernel.c with the given defines, runs it and returns its symbols
// and memory image.
func kernel(t *testing.T, defines ...string) (*elfsym.File, *image) {
	t.Helper()
	realparts.Need(t, "gcc")
	dir := t.TempDir()
	exe := filepath.Join(dir, "kernel")
	args := append([]string{"-g", "-O0", "-no-pie", "-Wno-stringop-truncation", "-I", firmware.Dir(), "-o", exe, "testdata/kernel.c"}, defines...)
	if out, err := exec.Command("gcc", args...).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	img := filepath.Join(dir, "mem")
	if out, err := exec.Command(exe, img).CombinedOutput(); err != nil {
		t.Fatalf("kernel: %v\n%s", err, out)
	}
	b, err := os.ReadFile(img)
	if err != nil {
		t.Fatal(err)
	}
	hdr, rest, ok := bytes.Cut(b, []byte("\n"))
	if !ok {
		t.Fatal("no header in the image")
	}
	base, err := strconv.ParseUint(string(hdr), 16, 64)
	if err != nil {
		t.Fatal(err)
	}
	sym, err := elfsym.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sym.Close() })
	return sym, &image{base: base, data: rest}
}

func TestTasks(t *testing.T) {
	for _, tc := range []struct {
		name    string
		defines []string
		stacks  bool // pxEndOfStack: sizes and usage known
	}{
		{"FreeRTOS 10", nil, true},
		{"FreeRTOS 9 names", []string{"-DOLD_NAMES"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sym, mem := kernel(t, tc.defines...)
			k, err := Open(sym)
			if err != nil {
				t.Fatal(err)
			}
			cur, err := k.Current(mem)
			if err != nil || cur == 0 {
				t.Fatalf("Current = %#x, %v", cur, err)
			}
			if a, _, ok := sym.Symbol("pxCurrentTCB"); !ok || a != k.CurrentAddr() {
				t.Errorf("CurrentAddr = %#x, symbol %#x", k.CurrentAddr(), a)
			}
			tasks, err := k.Tasks(mem)
			if err != nil {
				t.Fatal(err)
			}
			checkKernelTasks(t, tasks, cur, tc.stacks)
		})
	}
}

// kernelTasks are the tasks testdata/kernel.c makes.
var kernelTasks = []struct {
	name  string
	prio  uint32
	state string
	depth uint32 // stack words: odd ones end on pxEndOfStack
	used  uint32 // stack words below pxEndOfStack
	off   uint32 // pxStack % 8
}{
	{"IDLE", 0, "ready", 32, 4, 0},
	{"control", 4, "running", 31, 10, 0},
	{"logger", 4, "ready", 33, 6, 0},
	{"net", 2, "blocked", 40, 20, 0},
	{"watchdog", 3, "blocked", 17, 8, 0},
	{"shell", 1, "suspended", 45, 31, 0},
	{"rx_waiter", 2, "blocked", 32, 12, 0},
	{"a_very_long_", 1, "deleted", 21, 20, 0},
	{"pair0", 1, "ready", 25, 5, 0},
	{"pair1", 1, "ready", 25, 7, 4}, // 100 bytes after an 8-aligned pair0
}

// checkKernelTasks compares the tasks read from testdata/kernel.c with what it made; with
// stacks, the stack sizes and use too.
func checkKernelTasks(t *testing.T, tasks []Task, cur uint64, stacks bool) {
	t.Helper()
	got := map[string]Task{}
	for _, tk := range tasks {
		got[tk.Name] = tk
	}
	if len(tasks) != len(kernelTasks) || len(got) != len(kernelTasks) {
		t.Fatalf("tasks %+v", tasks)
	}
	for _, w := range kernelTasks {
		tk, ok := got[w.name]
		if !ok {
			t.Errorf("no task %q in %+v", w.name, tasks)
			continue
		}
		if tk.Priority != w.prio || tk.State != w.state || tk.Handle == 0 {
			t.Errorf("%s = %+v, want priority %d, %s", w.name, tk, w.prio, w.state)
		}
		if w.state == "running" && tk.Handle != cur {
			t.Errorf("the running task's handle %#x is not pxCurrentTCB %#x", tk.Handle, cur)
		}
		size, used := uint32(0), uint32(0)
		if stacks {
			// the kernel's figures: the depth given to xTaskCreate, and the size
			// less the fill left from the bottom (uxTaskGetStackHighWaterMark)
			end := (w.off+(w.depth-1)*4)&^7 - w.off
			size, used = w.depth*4, w.depth*4-(end-w.used*4)
		}
		if tk.StackSize != size || tk.StackUsage != used {
			t.Errorf("%s stack %d of %d bytes, want %d of %d", w.name, tk.StackUsage, tk.StackSize, used, size)
		}
	}
}

// A list that never comes back to its end is reported, not walked forever.
func TestBrokenList(t *testing.T) {
	sym, mem := kernel(t, "-DBROKEN")
	k, err := Open(sym)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Tasks(mem); err == nil {
		t.Fatal("a cyclic list gave no error")
	}
}

// Memory that cannot be read is an error, never a panic.
func TestUnreadable(t *testing.T) {
	sym, mem := kernel(t)
	k, err := Open(sym)
	if err != nil {
		t.Fatal(err)
	}
	short := &image{base: mem.base, data: mem.data[:16]}
	if _, err := k.Tasks(short); err == nil {
		t.Error("Tasks on unreadable memory gave no error")
	}
	if _, err := k.Current(short); err == nil && k.CurrentAddr() >= short.base+16 {
		t.Error("Current on unreadable memory gave no error")
	}
}

// A program without the kernel's symbols has no tasks to read.
func TestNoKernel(t *testing.T) {
	realparts.Need(t, "gcc")
	dir := t.TempDir()
	src := filepath.Join(dir, "plain.c")
	os.WriteFile(src, []byte("int counter;\nint main(void) { return counter; }\n"), 0o644)
	exe := filepath.Join(dir, "plain")
	if out, err := exec.Command("gcc", "-g", "-o", exe, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	sym, err := elfsym.Open(exe)
	if err != nil {
		t.Fatal(err)
	}
	defer sym.Close()
	if _, err := Open(sym); !errors.Is(err, ErrNoKernel) {
		t.Errorf("Open = %v, want ErrNoKernel", err)
	}
}

// The size of a stack from pxStack and pxEndOfStack, as the kernel sets it (aligned down to
// 8 bytes) and as ports that do not align it do, told by the slot above pxEndOfStack.
func TestStackSize(t *testing.T) {
	for _, c := range []struct {
		stack, end, elem uint64
		above            int
		want             uint32
	}{
		{0x20000000, 0x20000000 + 2040, 4, aboveFill, 2048},    // 512 words: &pxStack[511] & ~7
		{0x20000000, 0x20000000 + 2040, 4, aboveOther, 2044},   // 511 words: &pxStack[510]
		{0x20000000, 0x20000000 + 2040, 4, aboveUnknown, 2048}, // unreadable: even assumed
		{0x20000000, 0x20000000 + 2044, 4, aboveFill, 2048},    // not aligned: the last slot
		{0x20000004, 0x20000004 + 2044, 4, aboveOther, 2048},   // a 4-aligned stack: the last slot is 8-aligned
		{0x20000004, 0x20000004 + 2036, 4, aboveFill, 2044},    // 511 words on a 4-aligned stack
		{0x20000004, 0x20000004 + 2044, 4, aboveUnknown, 2048},
		{0x20000000, 0x20000000 + 4088, 8, aboveOther, 4096}, // 8-byte slots
	} {
		if got := stackSize(c.stack, c.end, c.elem, c.above); got != c.want {
			t.Errorf("stackSize(%#x, %#x, %d, %d) = %d, want %d", c.stack, c.end, c.elem, c.above, got, c.want)
		}
	}
}
