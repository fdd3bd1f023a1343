// Package wire holds the plumbing the line- and event-based front ends share: a bounded line
// reader, a writer safe for several goroutines, and a bounded per-subscriber queue. It knows
// no protocol and no debugger.
package wire

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// ErrLineTooLong reports a line over the reader's limit.
var ErrLineTooLong = errors.New("line too long")

// LineReader reads newline-delimited lines of bounded length, holding at most the limit in
// memory whatever the input. The zero value is not usable: make one with NewLineReader.
type LineReader struct {
	r   *bufio.Reader
	max int
	// DropUnterminated makes a last line without "\n" not count (a command only exists once
	// it is terminated): Next returns io.EOF instead of it.
	DropUnterminated bool
	// NoResync makes a line over the limit return ErrLineTooLong at once, without reading
	// the rest of it: for streams that cannot resynchronise (binary payload may follow), whose
	// reader closes the connection.
	NoResync bool
}

// NewLineReader reads lines of at most max bytes (not counting the line end) from r.
func NewLineReader(r io.Reader, max int) *LineReader {
	return &LineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// Reader is the buffered reader under the lines, for protocols that switch to raw bytes
// after a line (an upload's payload).
func (lr *LineReader) Reader() *bufio.Reader { return lr.r }

// Next returns the next line without its "\n" (and a "\r" before it). A line over the limit
// is consumed up to and including its newline and reported as ErrLineTooLong, so the caller
// can answer and read on. At the end of input it returns io.EOF, after a last non-empty line
// without a newline (unless DropUnterminated). The returned slice is valid until the next
// call (or the next read of Reader): a line that fits the buffer is returned in place.
func (lr *LineReader) Next() ([]byte, error) {
	var line []byte
	long := false
	for {
		frag, err := lr.r.ReadSlice('\n')
		if err == nil && line == nil && !long {
			return lr.trim(frag[:len(frag)-1]) // the whole line in the buffer: no copy
		}
		if !long {
			if len(line)+len(frag) > lr.max+2 { // +2: the line end is not part of the limit
				long, line = true, nil
				if lr.NoResync {
					return nil, ErrLineTooLong
				}
			} else {
				line = appendDoubling(line, frag, lr.max+2)
			}
		}
		switch {
		case err == nil:
			if long {
				return nil, ErrLineTooLong
			}
			return lr.trim(line[:len(line)-1])
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if long {
				return nil, ErrLineTooLong
			}
			if len(bytes.TrimSuffix(line, []byte("\r"))) > 0 && !lr.DropUnterminated {
				return lr.trim(line)
			}
			return nil, io.EOF
		default:
			return nil, err
		}
	}
}

// appendDoubling appends frag to line, doubling its capacity when it grows (up to limit):
// a long line is copied a few times, not at append's gentler growth for large slices (a
// 64 MiB line allocated about five times its size that way).
func appendDoubling(line, frag []byte, limit int) []byte {
	if need := len(line) + len(frag); need > cap(line) {
		grown := make([]byte, len(line), min(max(2*cap(line), need, 512), max(limit, need)))
		copy(grown, line)
		line = grown
	}
	return append(line, frag...)
}

func (lr *LineReader) trim(line []byte) ([]byte, error) {
	line = bytes.TrimSuffix(line, []byte("\r"))
	if len(line) > lr.max {
		return nil, ErrLineTooLong
	}
	return line, nil
}
