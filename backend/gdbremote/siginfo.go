package gdbremote

import (
	"debug/dwarf"
	"errors"
	"strings"
	"sync"

	"github.com/polydbg/polydbg/backend/elfsym"
)

// gdb's $_siginfo: what the kernel said of the signal that stopped the program (its
// siginfo_t, qXfer:siginfo:read), typed as gdb types it on x86-64 Linux, so that
// $_siginfo._sifields._sigfault.si_addr is the address a SIGSEGV faulted at.

// siginfoType is x86-64 Linux's siginfo_t as gdb declares it (linux-tdep.c): 128 bytes.
var siginfoType = sync.OnceValue(func() *dwarf.StructType {
	base := func(name string, size int64, signed bool) dwarf.Type {
		c := dwarf.CommonType{ByteSize: size, Name: name}
		if signed {
			return &dwarf.IntType{BasicType: dwarf.BasicType{CommonType: c}}
		}
		return &dwarf.UintType{BasicType: dwarf.BasicType{CommonType: c}}
	}
	i32, u32, i16, i64 := base("int", 4, true), base("unsigned int", 4, false), base("short", 2, true), base("long", 8, true)
	ptr := &dwarf.PtrType{CommonType: dwarf.CommonType{ByteSize: 8}, Type: &dwarf.VoidType{}}
	type fld struct {
		name string
		t    dwarf.Type
		off  int64
	}
	agg := func(kind, name string, size int64, fs ...fld) *dwarf.StructType {
		s := &dwarf.StructType{CommonType: dwarf.CommonType{ByteSize: size}, StructName: name, Kind: kind}
		for _, f := range fs {
			s.Field = append(s.Field, &dwarf.StructField{Name: f.name, Type: f.t, ByteOffset: f.off})
		}
		return s
	}
	sigval := agg("union", "sigval", 8, fld{"sival_int", i32, 0}, fld{"sival_ptr", ptr, 0})
	pad := &dwarf.ArrayType{CommonType: dwarf.CommonType{ByteSize: 112}, Type: i32, Count: 28}
	fields := agg("union", "", 112,
		fld{"_pad", pad, 0},
		fld{"_kill", agg("struct", "", 8, fld{"si_pid", i32, 0}, fld{"si_uid", u32, 4}), 0},
		fld{"_timer", agg("struct", "", 16, fld{"si_tid", i32, 0}, fld{"si_overrun", i32, 4}, fld{"si_sigval", sigval, 8}), 0},
		fld{"_rt", agg("struct", "", 16, fld{"si_pid", i32, 0}, fld{"si_uid", u32, 4}, fld{"si_sigval", sigval, 8}), 0},
		fld{"_sigchld", agg("struct", "", 32, fld{"si_pid", i32, 0}, fld{"si_uid", u32, 4}, fld{"si_status", i32, 8},
			fld{"si_utime", i64, 16}, fld{"si_stime", i64, 24}), 0},
		fld{"_sigfault", agg("struct", "", 32, fld{"si_addr", ptr, 0}, fld{"_addr_lsb", i16, 8},
			fld{"_addr_bnd", agg("struct", "", 16, fld{"_lower", ptr, 0}, fld{"_upper", ptr, 8}), 16}), 0},
		fld{"_sigpoll", agg("struct", "", 16, fld{"si_band", i64, 0}, fld{"si_fd", i32, 8}), 0},
		fld{"_sigsys", agg("struct", "", 16, fld{"_call_addr", ptr, 0}, fld{"_syscall", i32, 8}, fld{"_arch", u32, 12}), 0})
	return agg("struct", "siginfo", 128, fld{"si_signo", i32, 0}, fld{"si_errno", i32, 4}, fld{"si_code", i32, 8},
		fld{"_sifields", fields, 16})
})

// errNoSiginfo says $_siginfo is void: no live x86-64 Linux program stopped by a signal.
var errNoSiginfo = errors.New("no siginfo")

// siginfo is $_siginfo: the siginfo_t of the signal that stopped the selected thread.
func (e *evaluator) siginfo() (elfsym.Value, error) {
	t := e.t
	if !t.started() || t.core != nil || t.desc == nil || t.desc.Arch != "i386:x86-64" {
		return elfsym.Value{}, errNoSiginfo
	}
	if v, _ := t.c.Feature("qXfer:siginfo:read"); v != "+" {
		return elfsym.Value{}, errNoSiginfo
	}
	b, err := t.c.ReadXfer(t.ctx, "siginfo", "")
	if err != nil || len(b) < 128 {
		return elfsym.Value{}, errNoSiginfo
	}
	v := t.sym.FormatValue(siginfoType(), b[:128], 0, false, cachedMem{t}, 0)
	v.Name = "$_siginfo"
	return v, nil
}

// isSiginfo reports whether expr reads $_siginfo or a part of it.
func isSiginfo(expr string) (rest string, ok bool) {
	rest, ok = strings.CutPrefix(expr, "$_siginfo")
	return rest, ok && (rest == "" || rest[0] == '.' || rest[0] == '[')
}
