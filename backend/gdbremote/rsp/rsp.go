// Package rsp is the wire of GDB's Remote Serial Protocol: framing ("$payload#cs"),
// acknowledgements, binary escapes and run-length encoding, for a client of a stub and for a
// stub alike.
package rsp

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
)

// Limits that keep a broken or hostile stub from exhausting memory.
const (
	MaxRawPacket     = 1 << 20 // bytes between '$' and '#'
	MaxDecodedPacket = 4 << 20 // after run-length expansion
	maxJunk          = 512     // stray bytes tolerated between packets
)

// ErrGarbage is wrapped by errors for input that is not the Remote Serial Protocol.
var ErrGarbage = errors.New("gdbremote: stub sent garbage")

// Kind tells what ReadFrame found on the wire.
type Kind byte

const (
	Ack         Kind = '+'
	Nak         Kind = '-'
	Packet      Kind = '$'
	Notify      Kind = '%'
	BadChecksum Kind = '!'
)

// Frame is one unit read from the wire: an ack, a nak, or a packet with its decoded payload.
type Frame struct {
	Kind    Kind
	Payload []byte
}

// Checksum is the modulo-256 sum of the bytes between '$' and '#'.
func Checksum(b []byte) byte {
	var s byte
	for _, c := range b {
		s += c
	}
	return s
}

// AppendFrame appends "$payload#cs" to dst. payload must already be escaped where the packet
// carries binary data (see EscapeBinary).
func AppendFrame(dst, payload []byte) []byte {
	dst = append(dst, '$')
	dst = append(dst, payload...)
	cs := Checksum(payload)
	return append(dst, '#', hexDigits[cs>>4], hexDigits[cs&15])
}

const hexDigits = "0123456789abcdef"

// EscapeBinary escapes '#', '$', '}' and '*' as '}' followed by the byte xor 0x20, as binary
// data in X packets must be.
func EscapeBinary(dst, data []byte) []byte {
	for _, c := range data {
		switch c {
		case '#', '$', '}', '*':
			dst = append(dst, '}', c^0x20)
		default:
			dst = append(dst, c)
		}
	}
	return dst
}

// UnescapeBinary reverses EscapeBinary (for binary replies such as qXfer data).
func UnescapeBinary(b []byte) ([]byte, error) {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '}' {
			if i+1 >= len(b) {
				return nil, fmt.Errorf("%w: escape at end of binary data", ErrGarbage)
			}
			i++
			out = append(out, b[i]^0x20)
			continue
		}
		out = append(out, b[i])
	}
	return out, nil
}

// ExpandRLE expands run-length encoding: "X*n" stands for X followed by n-29 more copies of X.
func ExpandRLE(b []byte) ([]byte, error) {
	i := 0
	for i < len(b) && b[i] != '*' {
		i++
	}
	if i == len(b) {
		return b, nil // common case: no run-length encoding
	}
	out := make([]byte, 0, len(b)+64)
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '*' {
			out = append(out, c)
			continue
		}
		if len(out) == 0 || i+1 >= len(b) {
			return nil, fmt.Errorf("%w: run-length marker without a character or count", ErrGarbage)
		}
		i++
		n := int(b[i]) - 29
		if n < 3 || b[i] > 126 {
			return nil, fmt.Errorf("%w: bad run-length count %q", ErrGarbage, b[i])
		}
		if len(out)+n > MaxDecodedPacket {
			return nil, fmt.Errorf("%w: packet too large after run-length expansion", ErrGarbage)
		}
		prev := out[len(out)-1]
		for range n {
			out = append(out, prev)
		}
	}
	return out, nil
}

// ReadFrame reads the next ack, nak or packet. Stray bytes between packets are skipped up to
// maxJunk; a bad Checksum returns BadChecksum (the caller decides to nak or fail).
func ReadFrame(r *bufio.Reader) (Frame, error) {
	junk := 0
	for {
		c, err := r.ReadByte()
		if err != nil {
			return Frame{}, err
		}
		switch c {
		case '+':
			return Frame{Kind: Ack}, nil
		case '-':
			return Frame{Kind: Nak}, nil
		case '$', '%':
			return readPacketBody(r, Kind(c))
		default:
			junk++
			if junk > maxJunk {
				return Frame{}, fmt.Errorf("%w: %d bytes outside any packet", ErrGarbage, junk)
			}
		}
	}
}

func readPacketBody(r *bufio.Reader, kind Kind) (Frame, error) {
	var raw []byte
	for {
		c, err := r.ReadByte()
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return Frame{}, err
		}
		if c == '#' {
			break
		}
		if c == '$' {
			// A new packet starts inside this one: the stub restarted it. Keep the new one.
			raw = raw[:0]
			continue
		}
		raw = append(raw, c)
		if len(raw) > MaxRawPacket {
			return Frame{}, fmt.Errorf("%w: packet longer than %d bytes", ErrGarbage, MaxRawPacket)
		}
	}
	var cs [2]byte
	if _, err := io.ReadFull(r, cs[:]); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return Frame{}, err
	}
	var want [1]byte
	if _, err := hex.Decode(want[:], cs[:]); err != nil {
		return Frame{}, fmt.Errorf("%w: Checksum %q is not hex", ErrGarbage, cs[:])
	}
	if Checksum(raw) != want[0] {
		return Frame{Kind: BadChecksum, Payload: raw}, nil
	}
	payload, err := ExpandRLE(raw)
	if err != nil {
		return Frame{}, err
	}
	return Frame{Kind: kind, Payload: payload}, nil
}
