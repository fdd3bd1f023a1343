package gdbremote

// Target: glibc's thread events (the interface libthread_db gives debuggers) as live
// thread events, where the stub has no safe QThreadEvents (threadevents.go). Two writes
// ask for them: ld.so's __nptl_initial_report_events = 1 before the dynamic linker sets up
// the main thread (gdbserver holds a program it starts at its first instruction; a thread
// inherits the flag from the thread that creates it), and the TD_CREATE and TD_DEATH bits
// in libc's __nptl_threads_events once libc is loaded (at the program's entry point).
// Breakpoints on __nptl_create_event and __nptl_death_event then see every thread start
// and end. Programs linked statically or with another C library, and programs attached to
// after their start, have their threads seen at stops.

import (
	"context"
	"debug/elf"
	"fmt"
	"path/filepath"
	"strings"
)

// The event bits of thread_db.h's td_event_e: __td_eventmask(TD_CREATE), (TD_DEATH).
const (
	tdCreateMask = 1 << (8 - 1)
	tdDeathMask  = 1 << (9 - 1)
)

// askReportEvents sets ld.so's __nptl_initial_report_events (before the program runs).
func (t *Target) askReportEvents(ctx context.Context) error {
	interp, err := interpreter(t.sym.ELF)
	if err != nil {
		return err
	}
	aux, err := t.c.Auxv(ctx, t.sym.Arch.PtrSize, t.sym.Arch.ByteOrder)
	if err != nil {
		return err
	}
	base, ok := aux[7] // AT_BASE: where the dynamic linker is loaded
	if !ok {
		return fmt.Errorf("%w: no AT_BASE", ErrUnsupported)
	}
	addrs, err := dynamicSymbols(interp, "__nptl_initial_report_events")
	if err != nil {
		return err
	}
	return t.c.WriteMemory(ctx, base+addrs[0], []byte{1})
}

// armNPTLEvents asks libc for the create and death events and sets the breakpoints that
// report them (at the entry point, libc loaded).
func (t *Target) armNPTLEvents(ctx context.Context) error {
	libs, err := t.readLibraries(ctx)
	if err != nil {
		return err
	}
	for _, l := range libs {
		if !strings.HasPrefix(filepath.Base(l.Path), "libc.so") {
			continue
		}
		a, err := dynamicSymbols(l.Path, "__nptl_create_event", "__nptl_death_event", "__nptl_threads_events",
			"__nptl_last_event", "_thread_db_pthread_report_events")
		if err != nil {
			return err
		}
		// libthread_db's description of struct pthread's report_events: {bits, count, offset}
		field, err := fileBytes(l.Path, a[4], 12)
		if err != nil {
			return err
		}
		mask := l.Base + a[2] // td_thr_events_t: event_bits[0] first
		cur, err := t.c.ReadMemory(ctx, mask, 4)
		if err != nil {
			return err
		}
		t.order.PutUint32(cur, t.order.Uint32(cur)|tdCreateMask|tdDeathMask)
		if err := t.c.WriteMemory(ctx, mask, cur); err != nil {
			return err
		}
		return t.c.EnableNPTLEvents(ctx, NPTLEvents{Create: l.Base + a[0], Death: l.Base + a[1],
			LastEvent: l.Base + a[3], ReportEvents: uint64(t.sym.Arch.ByteOrder.Uint32(field[8:])),
			PtrSize: t.sym.Arch.PtrSize}, t.bpLen, t.threadEvent)
	}
	return fmt.Errorf("%w: no libc among the loaded libraries", ErrUnsupported)
}

// interpreter is the program's dynamic linker (PT_INTERP).
func interpreter(f *elf.File) (string, error) {
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			b := make([]byte, p.Filesz)
			if _, err := p.ReadAt(b, 0); err != nil {
				return "", err
			}
			return strings.TrimRight(string(b), "\x00"), nil
		}
	}
	return "", fmt.Errorf("%w: a static program", ErrUnsupported)
}

// dynamicSymbols finds the values of the named dynamic symbols of the ELF file at path.
func dynamicSymbols(path string, names ...string) ([]uint64, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	defer f.Close()
	syms, err := f.DynamicSymbols()
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrUnsupported, path, err)
	}
	out := make([]uint64, len(names))
	for i, n := range names {
		for _, s := range syms {
			if s.Name == n && s.Value != 0 {
				out[i] = s.Value
			}
		}
		if out[i] == 0 {
			return nil, fmt.Errorf("%w: %s has no %s", ErrUnsupported, path, n)
		}
	}
	return out, nil
}

// fileBytes reads n bytes at virtual address addr of the ELF file at path.
func fileBytes(path string, addr uint64, n int) ([]byte, error) {
	f, err := elf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	for _, p := range f.Progs {
		if p.Type == elf.PT_LOAD && addr >= p.Vaddr && addr+uint64(n) <= p.Vaddr+p.Filesz {
			b := make([]byte, n)
			_, err := p.ReadAt(b, int64(addr-p.Vaddr))
			return b, err
		}
	}
	return nil, fmt.Errorf("%w: %s: no data at %#x", ErrUnsupported, path, addr)
}
