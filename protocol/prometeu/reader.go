package prometeu

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// ErrLineTooLong reports a line longer than the limit; the reader has skipped it up to
// and including its newline, so the next line can be read.
var ErrLineTooLong = errors.New("line too long")

// ReadLine reads one line of at most max bytes (its "\n" and a "\r" before it removed).
// A last line without "\n" is returned with io.EOF. A longer line is consumed and
// reported as ErrLineTooLong, holding at most max bytes in memory.
func ReadLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+2 { // room for "\r\n"
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case err == nil:
			if tooLong {
				return nil, ErrLineTooLong
			}
			line = bytes.TrimSuffix(line[:len(line)-1], []byte("\r"))
			if len(line) > max {
				return nil, ErrLineTooLong
			}
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			if tooLong {
				return nil, ErrLineTooLong
			}
			if len(line) == 0 {
				return nil, err
			}
			if errors.Is(err, io.EOF) {
				line = bytes.TrimSuffix(line, []byte("\r"))
				if len(line) == 0 {
					return nil, io.EOF
				}
				if len(line) > max {
					return nil, ErrLineTooLong
				}
				return line, io.EOF
			}
			return nil, err
		}
	}
}
