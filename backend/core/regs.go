package core

import (
	"encoding/binary"
	"fmt"
	"strings"
)

// reg is one register of the description the stub serves: where its value comes from.
type reg struct {
	name string
	bits int
	typ  string
	gpr  int // index in user_regs_struct, or -1
	fp   int // byte offset in the FXSAVE area, or -1
}

// regs are the registers served, in the stub's numbering (gdb's amd64 names).
var regs = func() []reg {
	r := []reg{{"rax", 64, "int64", rRax, -1}, {"rbx", 64, "int64", rRbx, -1}, {"rcx", 64, "int64", rRcx, -1},
		{"rdx", 64, "int64", rRdx, -1}, {"rsi", 64, "int64", rRsi, -1}, {"rdi", 64, "int64", rRdi, -1},
		{"rbp", 64, "data_ptr", rRbp, -1}, {"rsp", 64, "data_ptr", rRsp, -1},
		{"r8", 64, "int64", rR8, -1}, {"r9", 64, "int64", rR9, -1}, {"r10", 64, "int64", rR10, -1},
		{"r11", 64, "int64", rR11, -1}, {"r12", 64, "int64", rR12, -1}, {"r13", 64, "int64", rR13, -1},
		{"r14", 64, "int64", rR14, -1}, {"r15", 64, "int64", rR15, -1}, {"rip", 64, "code_ptr", rRip, -1},
		{"eflags", 32, "i386_eflags", rEflags, -1}, {"cs", 32, "int32", rCs, -1}, {"ss", 32, "int32", rSs, -1},
		{"ds", 32, "int32", rDs, -1}, {"es", 32, "int32", rEs, -1}, {"fs", 32, "int32", rFs, -1}, {"gs", 32, "int32", rGs, -1}}
	for i := range 16 {
		r = append(r, reg{fmt.Sprintf("xmm%d", i), 128, "vec128", -1, 160 + 16*i})
	}
	return append(r, reg{"mxcsr", 32, "int", -1, 24}, reg{"orig_rax", 64, "int", rOrigRax, -1},
		reg{"fs_base", 64, "int", rFsBase, -1}, reg{"gs_base", 64, "int", rGsBase, -1})
}()

// targetXML is the description of regs.
var targetXML = func() string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?><!DOCTYPE target SYSTEM "gdb-target.dtd"><target>` +
		`<architecture>i386:x86-64</architecture><osabi>GNU/Linux</osabi><feature name="org.gnu.gdb.i386.core">`)
	for i, r := range regs {
		if r.name == "xmm0" {
			b.WriteString(`</feature><feature name="org.gnu.gdb.i386.sse">`)
		}
		if r.name == "orig_rax" {
			b.WriteString(`</feature><feature name="org.gnu.gdb.i386.linux">`)
		}
		fmt.Fprintf(&b, `<reg name="%s" bitsize="%d" type="%s" regnum="%d"/>`, r.name, r.bits, r.typ, i)
	}
	b.WriteString(`</feature></target>`)
	return b.String()
}()

// value is register r of thread th, in target byte order (little-endian); an FPU register
// of a thread without NT_FPREGSET reads as zeros.
func (r reg) value(th *Thread) []byte {
	b := make([]byte, r.bits/8)
	switch {
	case r.gpr >= 0:
		var w [8]byte
		binary.LittleEndian.PutUint64(w[:], th.Regs[r.gpr])
		copy(b, w[:])
	case r.fp >= 0 && r.fp+len(b) <= len(th.FP):
		copy(b, th.FP[r.fp:])
	}
	return b
}
