package ez

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
)

// MaxLine is the longest command line the server reads (not counting its line end). A
// longer line is answered with an error event and skipped up to the next newline.
const MaxLine = 1 << 20

// errLineTooLong reports a command line over the limit; the reader has skipped it.
var errLineTooLong = errors.New("command line too long")

// lineReader reads newline-delimited command lines of bounded length.
type lineReader struct {
	r   *bufio.Reader
	max int
}

func newLineReader(r io.Reader, max int) *lineReader {
	if max <= 0 {
		max = MaxLine
	}
	return &lineReader{r: bufio.NewReaderSize(r, 64<<10), max: max}
}

// next returns the next line without its "\n" (and without a "\r" before it). A line over
// the limit is consumed up to and including its newline and reported as errLineTooLong, so
// the caller can answer and keep reading. At end of input it returns io.EOF; a last line
// without a newline is still returned first.
func (lr *lineReader) next() ([]byte, error) {
	var line []byte
	long := false
	for {
		frag, err := lr.r.ReadSlice('\n')
		if !long {
			if len(line)+len(frag) > lr.max+2 { // +2: the line end is not part of the limit
				long, line = true, nil
			} else {
				line = append(line, frag...)
			}
		}
		switch {
		case err == nil:
			if long {
				return nil, errLineTooLong
			}
			line = bytes.TrimSuffix(line[:len(line)-1], []byte("\r"))
			if len(line) > lr.max {
				return nil, errLineTooLong
			}
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if long {
				return nil, errLineTooLong
			}
			if len(line) > 0 {
				line = bytes.TrimSuffix(line, []byte("\r"))
				if len(line) > lr.max {
					return nil, errLineTooLong
				}
				return line, nil
			}
			return nil, io.EOF
		default:
			return nil, err
		}
	}
}

// request is one command as the IDE sends it.
type request struct {
	Type    string          `json:"type"`
	Command string          `json:"command"`
	Params  json.RawMessage `json:"params"`
}

var commandRe = regexp.MustCompile(`"command"\s*:\s*"([A-Za-z]{1,40})"`)

// parseRequest decodes one line. On error it still returns the command name when it
// could be read, so the error event can say which command failed.
func parseRequest(line []byte) (request, error) {
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		var probe struct {
			Command string `json:"command"`
		}
		if json.Unmarshal(line, &probe) != nil {
			if m := commandRe.FindSubmatch(line); m != nil { // a broken line may still name it
				probe.Command = string(m[1])
			}
		}
		return request{Command: probe.Command}, fmt.Errorf("malformed JSON: %w", err)
	}
	if req.Type != "" && req.Type != "command" {
		return req, fmt.Errorf("message type %q is not \"command\"", req.Type)
	}
	if req.Command == "" {
		return req, errors.New("missing \"command\"")
	}
	return req, nil
}

// decodeParams decodes a command's params into p; absent or null params leave p as is.
func decodeParams(raw json.RawMessage, p any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	if err := json.Unmarshal(raw, p); err != nil {
		return fmt.Errorf("invalid params: %w", err)
	}
	return nil
}
