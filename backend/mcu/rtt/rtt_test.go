package rtt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"testing"
)

// fakeMem is a flat memory at base, with the target side of RTT written in Go.
type fakeMem struct {
	base  uint64
	b     []byte
	reads int
}

func (f *fakeMem) ReadMemory(addr uint64, n int) ([]byte, error) {
	f.reads++
	if addr < f.base || addr+uint64(n) > f.base+uint64(len(f.b)) {
		return nil, fmt.Errorf("bad read %#x+%d", addr, n)
	}
	return append([]byte(nil), f.b[addr-f.base:addr-f.base+uint64(n)]...), nil
}

func (f *fakeMem) WriteMemory(addr uint64, data []byte) error {
	if addr < f.base || addr+uint64(len(data)) > f.base+uint64(len(f.b)) {
		return fmt.Errorf("bad write %#x", addr)
	}
	copy(f.b[addr-f.base:], data)
	return nil
}

func (f *fakeMem) u32(a uint64) uint32 { return binary.LittleEndian.Uint32(f.b[a-f.base:]) }
func (f *fakeMem) put32(a uint64, v uint32) {
	binary.LittleEndian.PutUint32(f.b[a-f.base:], v)
}

const (
	base   = 0x20000000
	cbAt   = base + 0x100
	upBuf  = base + 0x400
	dnBuf  = base + 0x500
	nameAt = base + 0x600
)

// newTarget lays out a control block with one up buffer of upSize bytes and one down
// buffer of 16 bytes.
func newTarget(upSize uint32) *fakeMem {
	f := &fakeMem{base: base, b: make([]byte, 0x1000)}
	copy(f.b[cbAt-base:], ID)
	f.put32(cbAt+16, 1)
	f.put32(cbAt+20, 1)
	copy(f.b[nameAt-base:], "Terminal\x00")
	up := uint64(cbAt + 24)
	f.put32(up, nameAt)
	f.put32(up+4, upBuf)
	f.put32(up+8, upSize)
	dn := up + 24
	f.put32(dn, nameAt)
	f.put32(dn+4, dnBuf)
	f.put32(dn+8, 16)
	return f
}

// targetWrite is SEGGER_RTT_Write's ring logic (no overwrite: drops what does not fit).
func (f *fakeMem) targetWrite(data []byte) int {
	up := uint64(cbAt + 24)
	size, wr, rd := f.u32(up+8), f.u32(up+12), f.u32(up+16)
	n := 0
	for _, c := range data {
		next := (wr + 1) % size
		if next == rd {
			break
		}
		f.b[upBuf-base+uint64(wr)] = c
		wr = next
		n++
	}
	f.put32(up+12, wr)
	return n
}

// targetRead is SEGGER_RTT_Read on the down buffer.
func (f *fakeMem) targetRead() []byte {
	dn := uint64(cbAt + 48)
	size, wr, rd := f.u32(dn+8), f.u32(dn+12), f.u32(dn+16)
	var out []byte
	for rd != wr {
		out = append(out, f.b[dnBuf-base+uint64(rd)])
		rd = (rd + 1) % size
	}
	f.put32(dn+16, rd)
	return out
}

func TestFindOpenReadWrite(t *testing.T) {
	f := newTarget(8)
	at, err := Find(f, base, len(f.b))
	if err != nil || at != cbAt {
		t.Fatalf("Find = %#x, %v", at, err)
	}
	cb, err := Open(f, at, 4, binary.LittleEndian)
	if err != nil {
		t.Fatal(err)
	}
	if len(cb.Up) != 1 || len(cb.Down) != 1 || cb.Up[0].Name != "Terminal" || cb.Up[0].Size != 8 {
		t.Fatalf("cb = %+v", cb)
	}
	var got bytes.Buffer
	msg := []byte("hello, wrapping world")
	for len(msg) > 0 {
		n := f.targetWrite(msg)
		msg = msg[n:]
		m, err := cb.ReadAll(f)
		if err != nil {
			t.Fatal(err)
		}
		got.Write(m[0])
	}
	if got.String() != "hello, wrapping world" {
		t.Fatalf("read %q", got.String())
	}
	if m, _ := cb.ReadAll(f); len(m) != 0 {
		t.Fatalf("empty buffer gave %v", m)
	}
	f.targetWrite([]byte("abc"))
	if b, err := cb.Read(f, 0); err != nil || string(b) != "abc" {
		t.Fatalf("Read = %q %v", b, err)
	}
	// the down buffer holds 15 bytes
	n, err := cb.Write(f, 0, []byte("0123456789abcdefXYZ"))
	if err != nil || n != 15 {
		t.Fatalf("Write = %d, %v", n, err)
	}
	if n, _ := cb.Write(f, 0, []byte("more")); n != 0 {
		t.Fatalf("Write to a full buffer = %d", n)
	}
	if s := string(f.targetRead()); s != "0123456789abcde" {
		t.Fatalf("target read %q", s)
	}
	if n, _ := cb.Write(f, 0, []byte("wrap!")); n != 5 || string(f.targetRead()) != "wrap!" {
		t.Fatal("wrapped write")
	}
	if _, err := cb.Write(f, 3, nil); err == nil {
		t.Error("write to a missing channel")
	}
}

func TestNotFound(t *testing.T) {
	f := &fakeMem{base: base, b: make([]byte, 0x2000)}
	copy(f.b[0x1ffc:], "SEGG") // a partial ID at the end
	if _, err := Find(f, base, len(f.b)); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Find = %v", err)
	}
	if _, err := Open(f, base, 4, binary.LittleEndian); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Open = %v", err)
	}
	// an ID across a chunk boundary is found
	copy(f.b[4090:], ID+"\x00\x00\x00\x00\x00\x00")
	if at, err := Find(f, base, len(f.b)); err != nil || at != base+4090 {
		t.Fatalf("Find across chunks = %#x %v", at, err)
	}
	// corrupt offsets are reported, not followed
	g := newTarget(8)
	g.put32(cbAt+24+12, 99)
	cb, _ := Open(g, cbAt, 4, binary.LittleEndian)
	if _, err := cb.ReadAll(g); err == nil {
		t.Error("corrupt WrOff accepted")
	}
}
