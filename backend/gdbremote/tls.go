package gdbremote

// Target: thread-local storage (a __thread variable, glibc's errno), found as libthread_db
// finds it for gdb: the module's TLS id from its link_map, the thread's dtv (dynamic thread
// vector) from its thread pointer, and the module's block in that vector. The offsets of
// those fields are glibc's own, described by the _thread_db_* symbols libc exports for
// libthread_db ({size in bits, count, offset} each); the link_maps come from the stub's
// svr4 library list. x86-64's thread pointer is fs_base.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/polydbg/polydbg/backend/elfsym"
)

var (
	_ elfsym.ThreadLocals = cachedMem{}
	_ elfsym.ThreadLocals = directMem{}
)

// ThreadLocalBlock implements elfsym.ThreadLocals.
func (m cachedMem) ThreadLocalBlock(module string) (uint64, error) {
	return m.t.threadLocalBlock(module)
}

// ThreadLocalBlock implements elfsym.ThreadLocals.
func (m directMem) ThreadLocalBlock(module string) (uint64, error) {
	return m.t.threadLocalBlock(module)
}

// threadLocalBlock is the address of module's TLS block ("" for the program's) in the
// selected thread.
func (t *Target) threadLocalBlock(module string) (uint64, error) {
	if err := t.needStopped(); err != nil {
		return 0, err
	}
	reg, ok := t.desc.Reg("fs_base")
	if !ok || t.core != nil {
		return 0, t.tlsError(module, elfsym.ErrNoThreadLocals)
	}
	maps, err := t.linkMaps()
	if err != nil {
		return 0, t.tlsError(module, err)
	}
	lm, libc := maps.main, ""
	for _, l := range maps.libs {
		if l.name == module && module != "" {
			lm = l.lm
		}
		if strings.HasPrefix(filepath.Base(l.name), "libc.so") {
			libc = l.name
		}
	}
	if lm == 0 || libc == "" {
		return 0, t.tlsError(module, elfsym.ErrNoThreadLocals)
	}
	t.mu.Lock()
	d, ok := t.tlsOf[libc]
	t.mu.Unlock()
	if !ok {
		var err error
		if d, err = readTLSLayout(libc, t.order); err != nil {
			return 0, t.tlsError(module, elfsym.ErrNoThreadLocals)
		}
		t.mu.Lock()
		if t.tlsOf == nil {
			t.tlsOf = map[string]tlsLayout{}
		}
		t.tlsOf[libc] = d
		t.mu.Unlock()
	}
	modid, err := t.readField(lm, d.modid)
	if err != nil {
		return 0, err
	}
	b, err := t.reg(reg.Num)
	if err != nil || len(b) != 8 {
		return 0, t.tlsError(module, elfsym.ErrNoThreadLocals)
	}
	tp := t.order.Uint64(b)
	dtv, err := t.readField(tp, d.dtvp)
	if err != nil {
		return 0, err
	}
	block, err := t.readField(dtv+modid*uint64(d.dtvEntry.bits/8), d.pointer)
	if err != nil {
		return 0, err
	}
	if block == 0 || block == ^uint64(0) { // TLS_DTV_UNALLOCATED: not used in this thread yet
		return 0, t.tlsError(module, errors.New("the thread has not allocated its storage yet"))
	}
	return block, nil
}

// tlsError is gdb's words for a module's storage it cannot find.
func (t *Target) tlsError(module string, err error) error {
	what := "executable file " + t.elfPath
	if abs, e := filepath.Abs(t.elfPath); e == nil && module == "" {
		what = "executable file " + abs
	}
	if module != "" {
		what = "shared library " + module
	}
	return fmt.Errorf("Cannot find thread-local storage for %s, %s:\n%w", t.processName(), what, err)
}

// processName is "process PID" (gdb's words), "the program" without a pid.
func (t *Target) processName() string {
	if pid := t.ProcessID(); pid > 0 {
		return fmt.Sprintf("process %d", pid)
	}
	return "the program"
}

// dbField is one of libthread_db's field descriptions: its size in bits, count and offset.
type dbField struct{ bits, count, offset uint32 }

// tlsLayout is what finding a TLS block reads: link_map's l_tls_modid, struct pthread's
// dtv pointer, the size of a dtv entry and its pointer's place in it.
type tlsLayout struct{ modid, dtvp, dtvEntry, pointer dbField }

// readTLSLayout reads the layout from libc's _thread_db_* descriptions.
func readTLSLayout(libc string, order binary.ByteOrder) (tlsLayout, error) {
	names := []string{"_thread_db_link_map_l_tls_modid", "_thread_db_pthread_dtvp", "_thread_db_dtv_dtv", "_thread_db_dtv_t_pointer_val"}
	addrs, err := dynamicSymbols(libc, names...)
	if err != nil {
		return tlsLayout{}, err
	}
	var fs [4]dbField
	for i, a := range addrs {
		b, err := fileBytes(libc, a, 12)
		if err != nil {
			return tlsLayout{}, err
		}
		fs[i] = dbField{order.Uint32(b[0:4]), order.Uint32(b[4:8]), order.Uint32(b[8:12])}
	}
	return tlsLayout{fs[0], fs[1], fs[2], fs[3]}, nil
}

// readField reads the field f of the structure at base (a 32- or 64-bit value).
func (t *Target) readField(base uint64, f dbField) (uint64, error) {
	n := int(f.bits / 8)
	if n != 4 && n != 8 {
		return 0, elfsym.ErrNoThreadLocals
	}
	b, err := t.readCached(base+uint64(f.offset), n)
	if err != nil {
		return 0, err
	}
	if n == 4 {
		return uint64(t.order.Uint32(b)), nil
	}
	return t.order.Uint64(b), nil
}

// linkMapList is the dynamic linker's list of loaded objects with their link_maps.
type linkMapList struct {
	main uint64 // the program's link_map
	libs []linkMap
}

type linkMap struct {
	name string
	lm   uint64
}

// linkMaps reads the stub's svr4 library list with its link_map addresses.
func (t *Target) linkMaps() (linkMapList, error) {
	if !t.c.Supports("qXfer:libraries-svr4:read") {
		return linkMapList{}, elfsym.ErrNoThreadLocals
	}
	b, err := t.c.ReadXfer(t.ctx, "libraries-svr4", "")
	if err != nil {
		return linkMapList{}, err
	}
	doc, err := parseSVR4(b)
	if err != nil {
		return linkMapList{}, err
	}
	out := linkMapList{main: hexAttr(doc.MainLM)}
	for _, l := range doc.Libraries {
		out.libs = append(out.libs, linkMap{name: l.Name, lm: hexAttr(l.LM)})
	}
	return out, nil
}
