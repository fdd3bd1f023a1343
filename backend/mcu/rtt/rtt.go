// Package rtt reads and writes SEGGER RTT (Real Time Transfer) buffers in a target's
// memory, through any memory accessor: the host side of RTT, as a debug probe runs it.
//
// The control block (SEGGER_RTT_CB) is 16 bytes of ID ("SEGGER RTT"), the number of up
// (target to host) and down (host to target) buffers, then their descriptors:
//
//	struct { const char *sName; char *pBuffer; unsigned SizeOfBuffer;
//	         unsigned WrOff; volatile unsigned RdOff; unsigned Flags; }
//
// Each buffer is a ring: the writer advances WrOff, the reader RdOff; it is empty when they
// are equal and full when WrOff is one byte behind RdOff. The host reads up-buffers and
// writes down-buffers.
package rtt

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// Memory is target memory.
type Memory interface {
	ReadMemory(addr uint64, n int) ([]byte, error)
	WriteMemory(addr uint64, data []byte) error
}

// ID is the control block's signature.
const ID = "SEGGER RTT"

// ErrNotFound means no (initialised) control block is where it was looked for.
var ErrNotFound = errors.New("rtt: no control block")

// maxBuffers bounds the buffer counts of a control block (SEGGER's default is 3 and 3).
const maxBuffers = 32

// Channel is one RTT buffer.
type Channel struct {
	Index  int
	Name   string
	Buffer uint64 // pBuffer
	Size   uint32 // SizeOfBuffer
	Flags  uint32
	desc   uint64 // address of the descriptor
}

// ControlBlock is a located control block.
type ControlBlock struct {
	Addr      uint64
	Up, Down  []Channel
	ptrSize   int
	order     binary.ByteOrder
	descSize  int
	upDescs   uint64 // address of aUp[0]
	downDescs uint64
}

// Open reads the control block at addr. It returns ErrNotFound when the ID is not there
// yet (the firmware initialises the block at run time).
func Open(m Memory, addr uint64, ptrSize int, order binary.ByteOrder) (*ControlBlock, error) {
	if ptrSize != 4 && ptrSize != 8 {
		return nil, fmt.Errorf("rtt: pointer size %d", ptrSize)
	}
	hdr, err := m.ReadMemory(addr, 24)
	if err != nil {
		return nil, fmt.Errorf("rtt: read control block: %w", err)
	}
	if len(hdr) < 24 || !bytes.HasPrefix(hdr, []byte(ID+"\x00")) {
		return nil, fmt.Errorf("%w at %#x", ErrNotFound, addr)
	}
	nUp, nDown := int32(order.Uint32(hdr[16:])), int32(order.Uint32(hdr[20:]))
	if nUp < 0 || nUp > maxBuffers || nDown < 0 || nDown > maxBuffers {
		return nil, fmt.Errorf("rtt: control block at %#x has %d up and %d down buffers", addr, nUp, nDown)
	}
	cb := &ControlBlock{Addr: addr, ptrSize: ptrSize, order: order, descSize: 2*ptrSize + 16}
	cb.upDescs = addr + 24
	cb.downDescs = cb.upDescs + uint64(int(nUp)*cb.descSize)
	all, err := m.ReadMemory(cb.upDescs, int(nUp+nDown)*cb.descSize)
	if err != nil || len(all) < int(nUp+nDown)*cb.descSize {
		return nil, fmt.Errorf("rtt: read buffer descriptors: %v", err)
	}
	for i := range int(nUp + nDown) {
		d := all[i*cb.descSize:]
		ch := Channel{Name: "", Buffer: cb.ptr(d[cb.ptrSize:]), Size: order.Uint32(d[2*cb.ptrSize:]),
			Flags: order.Uint32(d[2*cb.ptrSize+12:]), desc: cb.upDescs + uint64(i*cb.descSize)}
		if name := cb.ptr(d); name != 0 {
			if b, err := m.ReadMemory(name, 32); err == nil {
				if j := bytes.IndexByte(b, 0); j >= 0 {
					b = b[:j]
				}
				ch.Name = string(b)
			}
		}
		if i < int(nUp) {
			ch.Index = i
			cb.Up = append(cb.Up, ch)
		} else {
			ch.Index = i - int(nUp)
			cb.Down = append(cb.Down, ch)
		}
	}
	return cb, nil
}

func (cb *ControlBlock) ptr(b []byte) uint64 {
	if cb.ptrSize == 8 {
		return cb.order.Uint64(b)
	}
	return uint64(cb.order.Uint32(b))
}

// Find scans [start, start+size) for the control block's ID, in chunks. The ID must be
// followed by six zero bytes (SEGGER pads it so), which excludes copies of the string.
func Find(m Memory, start uint64, size int) (uint64, error) {
	const chunk = 4096
	pat := []byte(ID + "\x00\x00\x00\x00\x00\x00")
	var prev []byte
	for off := 0; off < size; off += chunk {
		n := min(chunk, size-off)
		b, err := m.ReadMemory(start+uint64(off), n)
		if err != nil {
			return 0, fmt.Errorf("rtt: scan at %#x: %w", start+uint64(off), err)
		}
		buf := append(prev, b...)
		if i := bytes.Index(buf, pat); i >= 0 {
			return start + uint64(off) - uint64(len(prev)) + uint64(i), nil
		}
		if len(buf) >= len(pat) {
			prev = append([]byte(nil), buf[len(buf)-len(pat)+1:]...)
		}
		if len(b) < n {
			break
		}
	}
	return 0, ErrNotFound
}

// offsets reads WrOff and RdOff of a channel.
func (cb *ControlBlock) offsets(m Memory, ch Channel) (wr, rd uint32, err error) {
	b, err := m.ReadMemory(ch.desc+uint64(2*cb.ptrSize)+4, 8)
	if err != nil || len(b) < 8 {
		return 0, 0, fmt.Errorf("rtt: read offsets: %v", err)
	}
	return cb.order.Uint32(b), cb.order.Uint32(b[4:]), nil
}

// ReadAll reads what every up-buffer holds and marks it read: one read of all the up
// descriptors, then one or two reads per buffer with data and one write of its RdOff.
// The result has an entry for each channel that had data.
func (cb *ControlBlock) ReadAll(m Memory) (map[int][]byte, error) {
	if len(cb.Up) == 0 {
		return nil, nil
	}
	descs, err := m.ReadMemory(cb.upDescs, len(cb.Up)*cb.descSize)
	if err != nil || len(descs) < len(cb.Up)*cb.descSize {
		return nil, fmt.Errorf("rtt: read up descriptors: %v", err)
	}
	var out map[int][]byte
	for i, ch := range cb.Up {
		d := descs[i*cb.descSize+2*cb.ptrSize:]
		wr, rd := cb.order.Uint32(d[4:]), cb.order.Uint32(d[8:])
		data, err := cb.drain(m, ch, wr, rd)
		if err != nil {
			return out, err
		}
		if len(data) > 0 {
			if out == nil {
				out = map[int][]byte{}
			}
			out[i] = data
		}
	}
	return out, nil
}

// Read reads what up-buffer n holds and marks it read.
func (cb *ControlBlock) Read(m Memory, n int) ([]byte, error) {
	if n < 0 || n >= len(cb.Up) {
		return nil, fmt.Errorf("rtt: no up channel %d", n)
	}
	wr, rd, err := cb.offsets(m, cb.Up[n])
	if err != nil {
		return nil, err
	}
	return cb.drain(m, cb.Up[n], wr, rd)
}

func (cb *ControlBlock) drain(m Memory, ch Channel, wr, rd uint32) ([]byte, error) {
	if wr == rd || ch.Size == 0 {
		return nil, nil
	}
	if wr >= ch.Size || rd >= ch.Size {
		return nil, fmt.Errorf("rtt: up channel %d is corrupt (WrOff %d, RdOff %d, size %d)", ch.Index, wr, rd, ch.Size)
	}
	var data []byte
	if wr > rd {
		b, err := m.ReadMemory(ch.Buffer+uint64(rd), int(wr-rd))
		if err != nil {
			return nil, err
		}
		data = b
	} else {
		b, err := m.ReadMemory(ch.Buffer+uint64(rd), int(ch.Size-rd))
		if err != nil {
			return nil, err
		}
		data = b
		if wr > 0 {
			b2, err := m.ReadMemory(ch.Buffer, int(wr))
			if err != nil {
				return nil, err
			}
			data = append(data, b2...)
		}
	}
	var rb [4]byte
	cb.order.PutUint32(rb[:], wr)
	if err := m.WriteMemory(ch.desc+uint64(2*cb.ptrSize)+8, rb[:]); err != nil {
		return nil, err
	}
	return data, nil
}

// Write puts as much of data as fits into down-buffer n and returns how much did.
func (cb *ControlBlock) Write(m Memory, n int, data []byte) (int, error) {
	if n < 0 || n >= len(cb.Down) {
		return 0, fmt.Errorf("rtt: no down channel %d", n)
	}
	ch := cb.Down[n]
	wr, rd, err := cb.offsets(m, ch)
	if err != nil {
		return 0, err
	}
	if ch.Size == 0 || wr >= ch.Size || rd >= ch.Size {
		return 0, fmt.Errorf("rtt: down channel %d is corrupt", n)
	}
	free := int(rd) - int(wr) - 1
	if free < 0 {
		free += int(ch.Size)
	}
	k := min(free, len(data))
	if k == 0 {
		return 0, nil
	}
	first := min(k, int(ch.Size-wr))
	if err := m.WriteMemory(ch.Buffer+uint64(wr), data[:first]); err != nil {
		return 0, err
	}
	if first < k {
		if err := m.WriteMemory(ch.Buffer, data[first:k]); err != nil {
			return 0, err
		}
	}
	var wb [4]byte
	cb.order.PutUint32(wb[:], (wr+uint32(k))%ch.Size)
	if err := m.WriteMemory(ch.desc+uint64(2*cb.ptrSize)+4, wb[:]); err != nil {
		return 0, err
	}
	return k, nil
}
