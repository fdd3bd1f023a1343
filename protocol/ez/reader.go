package ez

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/polydbg/polydbg/internal/wirejson"
)

// MaxLine is the longest command line the server reads (not counting its line end). A
// longer line is answered with an error event and skipped up to the next newline.
const MaxLine = 1 << 20

// request is one command as the IDE sends it.
type request struct {
	Type    string          `json:"type"`
	Command string          `json:"command"`
	Params  json.RawMessage `json:"params"`
}

// parseRequest decodes one line. On error it still returns the command name when it
// could be read, so the error event can say which command failed.
func parseRequest(line []byte) (request, error) {
	if req, ok := bareRequest(line); ok {
		return req, nil
	}
	var req request
	if wirejson.DecodeFresh(line, &req) { // one pass: a plain command line
		return checkRequest(req)
	}
	req = request{}
	if err := json.Unmarshal(line, &req); err != nil {
		var probe struct {
			Command string `json:"command"`
		}
		if json.Unmarshal(line, &probe) != nil {
			probe.Command, _ = wirejson.SalvageWord(line, "command") // a broken line may still name it
		}
		return request{Command: probe.Command}, fmt.Errorf("malformed JSON: %w", err)
	}
	return checkRequest(req)
}

// bareRequest reads a command with no parameters written as the document writes one on
// a line, {"type":"command","command":"NAME","params":{}} (or without "params"), without
// decoding it; ok is false for any other line, and for a name that is not a command.
func bareRequest(line []byte) (req request, ok bool) {
	const head = `{"type":"command","command":"`
	if len(line) <= len(head) || string(line[:len(head)]) != head {
		return request{}, false
	}
	rest := line[len(head):]
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return request{}, false
	}
	switch tail := string(rest[end:]); tail {
	case `"}`, `","params":{}}`:
	default:
		return request{}, false
	}
	name := rest[:end]
	for _, known := range commandNames {
		if string(name) == known {
			return request{Type: "command", Command: known}, true
		}
	}
	return request{}, false
}

// checkRequest refuses a decoded line that is not a command.
func checkRequest(req request) (request, error) {
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
	if err := wirejson.Unmarshal(raw, p); err != nil {
		return fmt.Errorf("invalid params: %w", err)
	}
	return nil
}
