package dap

import (
	"bufio"
	"bytes"
	"errors"
	"testing"
)

// FuzzReadFrame: any input is read to its end without a panic, no body is longer than the
// limit, and a well-formed frame appended after anything that ends a header block reads
// back whole.
func FuzzReadFrame(f *testing.F) {
	for _, s := range []string{
		"Content-Length: 2\r\n\r\n{}",
		"Content-Length: 2\r\nContent-Type: x\r\n\r\n{}",
		"garbage\r\n\r\nContent-Length: 1\r\n\r\nx",
		"Content-Length: 99999999999999999999\r\n\r\n",
		"Content-Length: 100\r\n\r\nshort",
		"\r\n\r\nContent-Length:3\n\nabc",
		"Content-Length: -1\r\n\r\n",
	} {
		f.Add([]byte(s))
	}
	const max = 64
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bufio.NewReader(bytes.NewReader(data))
		for i := 0; i < len(data)+2; i++ {
			body, err := ReadFrame(r, max)
			var fe *FrameError
			if err != nil && !errors.As(err, &fe) {
				break
			}
			if len(body) > max {
				t.Fatalf("body of %d bytes over the limit %d", len(body), max)
			}
		}
		want := []byte(`{"seq":1}`)
		var buf bytes.Buffer
		buf.Write(data)
		buf.WriteString("\r\n\r\n\r\n") // ends any header block the data left open
		_ = WriteFrame(&buf, want)
		_ = WriteFrame(&buf, want)
		r = bufio.NewReader(&buf)
		for {
			body, err := ReadFrame(r, 1<<30)
			if bytes.Equal(body, want) {
				return // resynchronised
			}
			var fe *FrameError
			if err != nil && !errors.As(err, &fe) {
				// the data announced a body that swallowed the frames: fine only then
				if !bytes.Contains(bytes.ToLower(data), []byte("content-length")) {
					t.Fatalf("lost the frame after %q: %v", data, err)
				}
				return
			}
		}
	})
}
