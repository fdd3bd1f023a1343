package elfsym

import (
	"debug/dwarf"
	"debug/elf"
	"encoding/binary"
	"errors"
	"testing"
)

// fuzzFile is a File with just enough to evaluate expressions and location lists: the
// sections the fuzzer supplies instead of an ELF file's.
func fuzzFile(machine elf.Machine, sections map[string][]byte) *File {
	a, _ := archOf(&elf.File{FileHeader: elf.FileHeader{Machine: machine, ByteOrder: binary.LittleEndian}})
	return &File{Arch: a, ELF: &elf.File{}, frames: &cfiTable{}, sections: sections, versions: map[dwarf.Offset]int{}}
}

// The expression machine never panics or loops on any bytes, and answers a location or an
// error.
func FuzzEvalExpr(f *testing.F) {
	for _, seed := range [][]byte{
		{0x91, 0x7c},                         // fbreg -4
		{0x50, 0x93, 0x04, 0x51, 0x93, 0x04}, // reg0 piece 4 reg1 piece 4
		{0xa3, 0x01, 0x50, 0x9f},             // entry_value(reg0) stack_value
		{0x35, 0x36, 0x1e, 0x9f},             // lit5 lit6 mul stack_value
		{0x31, 0x28, 0x02, 0x00, 0x33, 0x9f}, // lit1 bra +2 lit3 stack_value
		{0x2f, 0xfd, 0xff},                   // skip -3 (a loop)
		{0x9e, 0x04, 1, 2, 3, 4},             // implicit_value 4
		{0xa0, 0, 0, 0, 0, 0},                // implicit_pointer
		{0x70, 0x10, 0x06},                   // breg0 16 deref
		{0xf3, 0x02, 0x90, 0x05, 0x9f},       // GNU_entry_value(regx 5) stack_value
		{0xa3, 0x02, 0x75, 0x00, 0x9f},       // entry_value(breg5 0) stack_value
	} {
		f.Add(seed)
	}
	fl := fuzzFile(elf.EM_ARM, map[string][]byte{})
	f.Fuzz(func(t *testing.T, expr []byte) {
		env := &exprEnv{regs: regsOf(map[int]uint64{0: 0x20000000, 13: 0x20001000}), mem: fakeMem{},
			frameBase: func() (uint64, error) { return 0x20001000, nil },
			cfa:       func() (uint64, error) { return 0x20001008, nil }, cu: &cuInfo{version: 5}}
		fl.evalExpr(expr, env, nil)
		fl.staticExpr(expr, nil, 0)
		// with entry values: a register's resolves, anything else is optimized out
		env.entryValue = func(sub []byte) (uint64, error) {
			if r, ok := regOf(sub); ok {
				return uint64(r) + 0x100, nil
			}
			return 0, ErrOptimizedOut
		}
		fl.evalExpr(expr, env, nil)
		regOf(expr)
	})
}

// An entry value takes the register's value at the call (here, from the handler) and goes
// on evaluating: entry_value(reg5) stack_value is that value, entry_value of anything but
// a register is optimized out.
func TestEntryValueOp(t *testing.T) {
	fl := fuzzFile(elf.EM_X86_64, map[string][]byte{})
	env := &exprEnv{entryValue: func(sub []byte) (uint64, error) {
		if r, ok := regOf(sub); ok && r == 5 {
			return 97, nil
		}
		return 0, ErrOptimizedOut
	}}
	l, err := fl.evalExpr([]byte{0xa3, 0x01, 0x55, 0x23, 0x03, 0x9f}, env, nil) // (rdi on entry)+3
	if err != nil || l.Kind != LocValue || l.Addr != 100 {
		t.Errorf("entry_value(reg5) plus_uconst 3 = %+v, %v", l, err)
	}
	if _, err := fl.evalExpr([]byte{0xf3, 0x02, 0x90, 0x05, 0x9f}, env, nil); err != nil { // GNU form, regx 5
		t.Errorf("GNU_entry_value(regx 5): %v", err)
	}
	if _, err := fl.evalExpr([]byte{0xa3, 0x02, 0x75, 0x00, 0x9f}, env, nil); !errors.Is(err, ErrOptimizedOut) {
		t.Errorf("entry_value(breg5 0): %v, want optimized out", err)
	}
	if _, err := fl.evalExpr([]byte{0xa3, 0x01, 0x55, 0x9f}, &exprEnv{}, nil); !errors.Is(err, ErrOptimizedOut) {
		t.Errorf("entry_value without a frame: %v, want optimized out", err)
	}
}

// Location lists of DWARF 4 and 5 parse without panicking whatever the section holds.
func FuzzLocList(f *testing.F) {
	f.Add([]byte{4, 0x10, 0x20, 1, 0x50, 0}, uint8(5), false)                            // offset_pair reg0
	f.Add([]byte{6, 0, 0, 0, 0, 7, 0, 1, 0, 0, 0, 2, 0, 0, 1, 0x51, 0}, uint8(5), false) // base, start_end
	f.Add([]byte{0x10, 0, 0, 0, 0x20, 0, 0, 0, 1, 0, 0x50, 0, 0, 0, 0, 0, 0, 0, 0}, uint8(4), false)
	f.Add([]byte{4, 0, 0, 0, 0, 4, 0x10, 0x20, 1, 0x50, 0}, uint8(5), true) // loclistx
	f.Fuzz(func(t *testing.T, sec []byte, version uint8, indexed bool) {
		fl := fuzzFile(elf.EM_ARM, map[string][]byte{".debug_loc": sec, ".debug_loclists": sec, ".debug_addr": sec})
		v := &Var{locList: 0, locIndexed: indexed, cu: &cuInfo{version: int(version)}}
		for _, pc := range []uint64{0, 0x10, 0x18, 0x1000} {
			fl.locExpr(v, pc)
		}
	})
}

// FuzzDescribeExpr: no location expression makes the describer panic or loop.
func FuzzDescribeExpr(f *testing.F) {
	for _, s := range [][]byte{{0x91, 0x5c}, {0x55}, {0x30, 0x9f}, {0xa3, 0x01, 0x55, 0x9f}, {0xa3, 0xff, 0xff, 0x7f}, {0x03, 1, 2}, {0x92, 0x80}, {0xff, 0x91}} {
		f.Add(s)
	}
	file := &File{Arch: &Arch{PtrSize: 8, ByteOrder: binary.LittleEndian, RegNames: []string{"rax"}}}
	f.Fuzz(func(t *testing.T, expr []byte) {
		_ = file.describeExpr(expr)
	})
}
