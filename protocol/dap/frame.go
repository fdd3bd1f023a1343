package dap

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// Limits of the base protocol's framing.
const (
	// MaxFrame is the largest message body read into memory. A longer one is skipped
	// unread (its bytes are discarded as they come) and answered with an error.
	MaxFrame = 16 << 20
	// maxHeaderLine bounds one header line; a longer one is garbage.
	maxHeaderLine = 1024
	// maxHeaderLines bounds the lines of one header block.
	maxHeaderLines = 32
)

// FrameError is a frame that could not be read but after which reading can go on: the
// stream is positioned at the next frame (or at garbage that the next read skips).
type FrameError struct{ Msg string }

func (e *FrameError) Error() string { return e.Msg }

// ReadFrame reads one "Content-Length: N\r\n\r\n" + body message. Header lines other than
// Content-Length are ignored, as the base protocol allows. A malformed header or a body
// over max returns a *FrameError after consuming what it could, so the caller answers and
// reads on; io errors (the client went away) are returned as they are.
func ReadFrame(r *bufio.Reader, max int) ([]byte, error) {
	length := int64(-1)
	var bad string
	for lines := 0; ; lines++ {
		line, err := readLine(r)
		if err != nil {
			return nil, err
		}
		if len(line) == 0 {
			if lines == 0 {
				lines-- // blank lines between frames
				continue
			}
			break
		}
		if lines >= maxHeaderLines {
			bad = "too many header lines"
			continue
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			bad = fmt.Sprintf("malformed header line %q", clip(string(line)))
			continue
		}
		if bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")) {
			value = bytes.TrimSpace(value)
			n, err := strconv.ParseInt(string(value), 10, 64)
			if err != nil || n < 0 {
				bad = fmt.Sprintf("bad Content-Length %q", clip(string(value)))
				continue
			}
			length = n
		}
	}
	if bad == "" && length > int64(max) {
		bad = fmt.Sprintf("message of %d bytes refused: the limit is %d", length, max)
	}
	if bad != "" {
		if length > 0 { // skip the body its header announced, unread
			if _, err := io.CopyN(io.Discard, r, length); err != nil {
				return nil, err
			}
		}
		return nil, &FrameError{"bad frame: " + bad}
	}
	if length < 0 {
		return nil, &FrameError{"bad frame: no Content-Length header"}
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		return nil, err
	}
	return body, nil
}

// readLine reads a line ending in "\n" (a "\r" before it is dropped), holding at most
// maxHeaderLine bytes of it. The line is valid until the next read from r.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	long := false
	for first := true; ; first = false {
		frag, err := r.ReadSlice('\n')
		if first && err == nil && len(frag) <= maxHeaderLine+2 { // the usual case: no copy
			line = frag
		} else if !long && len(line)+len(frag) <= maxHeaderLine+2 {
			line = append(line, frag...)
		} else {
			long = true
		}
		switch {
		case err == nil:
			if long {
				return []byte("\x00long"), nil // not a header: reported as malformed
			}
			line = bytes.TrimSuffix(line, []byte("\n"))
			return bytes.TrimSuffix(line, []byte("\r")), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		default:
			if err == io.EOF && len(line) > 0 {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
	}
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// WriteFrame writes body as one message.
func WriteFrame(w io.Writer, body []byte) error {
	buf := make([]byte, 0, len(body)+32)
	buf = append(buf, "Content-Length: "...)
	buf = strconv.AppendInt(buf, int64(len(body)), 10)
	buf = append(buf, "\r\n\r\n"...)
	buf = append(buf, body...)
	_, err := w.Write(buf)
	return err
}
