package gdbremote

import (
	"encoding/binary"
	"errors"
	"fmt"
	"testing"
)

// axEval is a small interpreter of the bytecodes CompileCondition emits, to check their
// meaning (gdbserver runs the same bytecodes in TestGdbserverTargetCondition).
func axEval(code []byte, regs map[int]uint64, mem map[uint64]byte) (int64, error) {
	var st []int64
	pop := func() int64 { v := st[len(st)-1]; st = st[:len(st)-1]; return v }
	ref := func(n int) {
		a := uint64(pop())
		var v uint64
		for i := n - 1; i >= 0; i-- {
			v = v<<8 | uint64(mem[a+uint64(i)])
		}
		st = append(st, int64(v))
	}
	for pc := 0; pc < len(code); {
		op := code[pc]
		pc++
		switch op {
		case axConst8:
			st = append(st, int64(code[pc]))
			pc++
		case axConst16:
			st = append(st, int64(binary.BigEndian.Uint16(code[pc:])))
			pc += 2
		case axConst32:
			st = append(st, int64(binary.BigEndian.Uint32(code[pc:])))
			pc += 4
		case axConst64:
			st = append(st, int64(binary.BigEndian.Uint64(code[pc:])))
			pc += 8
		case axReg:
			st = append(st, int64(regs[int(binary.BigEndian.Uint16(code[pc:]))]))
			pc += 2
		case axRef8, axRef16, axRef32, axRef64:
			ref(1 << (op - axRef8))
		case axExt:
			n := uint(code[pc])
			pc++
			v := pop()
			st = append(st, v<<(64-n)>>(64-n))
		case axAdd:
			b, a := pop(), pop()
			st = append(st, a+b)
		case axEqual:
			b, a := pop(), pop()
			st = append(st, b2i(a == b))
		case axLessSigned:
			b, a := pop(), pop()
			st = append(st, b2i(a < b))
		case axLessUnsigned:
			b, a := pop(), pop()
			st = append(st, b2i(uint64(a) < uint64(b)))
		case axLogNot:
			st = append(st, b2i(pop() == 0))
		case axBitAnd:
			b, a := pop(), pop()
			st = append(st, a&b)
		case axBitOr:
			b, a := pop(), pop()
			st = append(st, a|b)
		case axSwap:
			n := len(st)
			st[n-1], st[n-2] = st[n-2], st[n-1]
		case axEnd:
			if len(st) != 1 {
				return 0, fmt.Errorf("stack %v at end", st)
			}
			return st[0], nil
		default:
			return 0, fmt.Errorf("opcode %#x", op)
		}
	}
	return 0, errors.New("no end")
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func TestCompileCondition(t *testing.T) {
	// i: int at rbp(6)-20 = -5; n: unsigned char global at 0x1000 = 200;
	// big: long at 0x2000 = 1<<40; r: int in register 3 = 7.
	regs := map[int]uint64{6: 0x8000, 3: 7}
	mem := map[uint64]byte{}
	put := func(a uint64, v uint64, n int) {
		for i := range n {
			mem[a+uint64(i)] = byte(v >> (8 * i))
		}
	}
	put(0x8000-20, uint64(0xfffffffb), 4)
	put(0x1000, 200, 1)
	put(0x2000, 1<<40, 8)
	vars := map[string]AgentVar{
		"i":   {Reg: 6, Offset: -20, Size: 4, Signed: true},
		"n":   {Reg: -1, Offset: 0x1000, Size: 1},
		"big": {Reg: -1, Offset: 0x2000, Size: 8, Signed: true},
		"r":   {InReg: true, Reg: 3, Size: 4, Signed: true},
	}
	resolve := func(name string) (AgentVar, error) {
		v, ok := vars[name]
		if !ok {
			return v, fmt.Errorf("no %s", name)
		}
		return v, nil
	}
	cases := []struct {
		cond string
		want int64
	}{
		{"i == -5", 1}, {"i != -5", 0}, {"i < 0", 1}, {"i > -6", 1}, {"i >= -5", 1}, {"i <= -6", 0},
		{"n == 200", 1}, {"n > 100", 1}, {"n < 300", 1},
		{"big == 1099511627776", 1}, {"big > 0x10000000000", 0},
		{"r == 7", 1}, {"r", 1}, {"!r", 0}, {"not n", 0},
		{"i == -5 && n == 200", 1}, {"i == -5 and n == 1", 0}, {"i == 0 || n == 200", 1},
		{"i == 0 or n == 1", 0}, {"(i == 0 || r == 7) && n == 200", 1},
		{"i == 0 || r == 7 && n == 1", 0}, {"5 < r", 1}, {"i == r", 0},
	}
	for _, tc := range cases {
		code, err := CompileCondition(tc.cond, resolve)
		if err != nil {
			t.Errorf("%q: %v", tc.cond, err)
			continue
		}
		got, err := axEval(code, regs, mem)
		if err != nil || got != tc.want {
			t.Errorf("%q = %d, %v (code %x), want %d", tc.cond, got, err, code, tc.want)
		}
	}
	for _, bad := range []string{"f(1)", "i + 1 == 2", "i ==", "(i == 1", "x == 1", "i == 1 1", "s.name == 1", "*p == 1"} {
		if _, err := CompileCondition(bad, resolve); !errors.Is(err, ErrNotCompilable) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
