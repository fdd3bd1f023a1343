package gdbremote

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
)

// Limits that keep a broken or hostile stub from exhausting memory.
const (
	maxRawPacket     = 1 << 20 // bytes between '$' and '#'
	maxDecodedPacket = 4 << 20 // after run-length expansion
	maxJunk          = 512     // stray bytes tolerated between packets
)

// ErrGarbage is wrapped by errors for input that is not the Remote Serial Protocol.
var ErrGarbage = errors.New("gdbremote: stub sent garbage")

// frameKind tells what readFrame found on the wire.
type frameKind byte

const (
	frameAck       frameKind = '+'
	frameNak       frameKind = '-'
	framePacket    frameKind = '$'
	frameNotify    frameKind = '%'
	frameBadChksum frameKind = '!'
)

// frame is one unit read from the wire: an ack, a nak, or a packet with its decoded payload.
type frame struct {
	kind    frameKind
	payload []byte
}

// checksum is the modulo-256 sum of the bytes between '$' and '#'.
func checksum(b []byte) byte {
	var s byte
	for _, c := range b {
		s += c
	}
	return s
}

// appendFrame appends "$payload#cs" to dst. payload must already be escaped where the packet
// carries binary data (see escapeBinary).
func appendFrame(dst, payload []byte) []byte {
	dst = append(dst, '$')
	dst = append(dst, payload...)
	cs := checksum(payload)
	return append(dst, '#', hexDigits[cs>>4], hexDigits[cs&15])
}

const hexDigits = "0123456789abcdef"

// escapeBinary escapes '#', '$', '}' and '*' as '}' followed by the byte xor 0x20, as binary
// data in X packets must be.
func escapeBinary(dst, data []byte) []byte {
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

// unescapeBinary reverses escapeBinary (for binary replies such as qXfer data).
func unescapeBinary(b []byte) ([]byte, error) {
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

// expandRLE expands run-length encoding: "X*n" stands for X followed by n-29 more copies of X.
func expandRLE(b []byte) ([]byte, error) {
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
		if len(out)+n > maxDecodedPacket {
			return nil, fmt.Errorf("%w: packet too large after run-length expansion", ErrGarbage)
		}
		prev := out[len(out)-1]
		for range n {
			out = append(out, prev)
		}
	}
	return out, nil
}

// readFrame reads the next ack, nak or packet. Stray bytes between packets are skipped up to
// maxJunk; a bad checksum returns frameBadChksum (the caller decides to nak or fail).
func readFrame(r *bufio.Reader) (frame, error) {
	junk := 0
	for {
		c, err := r.ReadByte()
		if err != nil {
			return frame{}, err
		}
		switch c {
		case '+':
			return frame{kind: frameAck}, nil
		case '-':
			return frame{kind: frameNak}, nil
		case '$', '%':
			return readPacketBody(r, frameKind(c))
		default:
			junk++
			if junk > maxJunk {
				return frame{}, fmt.Errorf("%w: %d bytes outside any packet", ErrGarbage, junk)
			}
		}
	}
}

func readPacketBody(r *bufio.Reader, kind frameKind) (frame, error) {
	var raw []byte
	for {
		c, err := r.ReadByte()
		if err != nil {
			if err == io.EOF {
				err = io.ErrUnexpectedEOF
			}
			return frame{}, err
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
		if len(raw) > maxRawPacket {
			return frame{}, fmt.Errorf("%w: packet longer than %d bytes", ErrGarbage, maxRawPacket)
		}
	}
	var cs [2]byte
	if _, err := io.ReadFull(r, cs[:]); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return frame{}, err
	}
	var want [1]byte
	if _, err := hex.Decode(want[:], cs[:]); err != nil {
		return frame{}, fmt.Errorf("%w: checksum %q is not hex", ErrGarbage, cs[:])
	}
	if checksum(raw) != want[0] {
		return frame{kind: frameBadChksum, payload: raw}, nil
	}
	payload, err := expandRLE(raw)
	if err != nil {
		return frame{}, err
	}
	return frame{kind: kind, payload: payload}, nil
}
