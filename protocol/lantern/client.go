package lantern

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/polydbg/polydbg/internal/wire"
)

// Client is a connection to a debuglantern daemon. It is not safe for concurrent use: the
// protocol answers one command at a time.
type Client struct {
	conn  net.Conn
	lines *wire.LineReader
}

// maxAnswer bounds one answer line read by the client: a daemon that sends more is cut off.
const maxAnswer = 64 << 20

// Dial connects to the daemon at addr and, when token is not empty, authenticates.
func Dial(addr, token string, timeout time.Duration) (*Client, error) {
	conn, err := net.DialTimeout("tcp", addr, timeout)
	if err != nil {
		return nil, err
	}
	c := &Client{conn: conn, lines: newLineReader(conn, maxAnswer)}
	if token != "" {
		if _, err := c.Do("AUTH " + token); err != nil {
			conn.Close()
			return nil, err
		}
	}
	return c, nil
}

// Close closes the connection.
func (c *Client) Close() error { return c.conn.Close() }

// Do sends one command line and returns the JSON answer, or an *Error for an error answer.
func (c *Client) Do(line string) (json.RawMessage, error) {
	if strings.ContainsAny(line, "\r\n") {
		return nil, errors.New("lantern: a command is one line")
	}
	if _, err := io.WriteString(c.conn, line+"\n"); err != nil {
		return nil, err
	}
	return c.answer()
}

func (c *Client) answer() (json.RawMessage, error) {
	line, err := c.lines.Next()
	if err != nil {
		return nil, fmt.Errorf("lantern: reading the answer: %w", err)
	}
	line = bytes.Clone(bytes.TrimSpace(line)) // the reader reuses its buffer
	var probe struct {
		OK   *bool  `json:"ok"`
		Code string `json:"error_code"`
	}
	if json.Unmarshal(line, &probe) == nil && probe.OK != nil && !*probe.OK {
		e := &Error{}
		json.Unmarshal(line, e)
		return nil, e
	}
	if !json.Valid(line) {
		return nil, fmt.Errorf("lantern: answer is not JSON: %q", line)
	}
	return json.RawMessage(line), nil
}

// DoInto sends a command and decodes its answer into v.
func (c *Client) DoInto(line string, v any) error {
	raw, err := c.Do(line)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}

// Session runs a command that answers with a session (START, STOP, STATUS, ARGS...).
func (c *Client) Session(line string) (Session, error) {
	var s Session
	err := c.DoInto(line, &s)
	return s, err
}

// Upload sends size bytes from r: a single ELF binary when execPath is empty, else a
// tar.gz bundle whose executable is execPath. It returns the new session's id.
func (c *Client) Upload(r io.Reader, size int64, execPath string) (string, error) {
	head := "UPLOAD " + strconv.FormatInt(size, 10)
	if execPath != "" {
		head += " " + execPath
	}
	if _, err := io.WriteString(c.conn, head+"\n"); err != nil {
		return "", err
	}
	// Send and listen at once: the daemon may refuse early and close.
	sent := make(chan error, 1)
	go func() {
		n, err := io.Copy(c.conn, io.LimitReader(r, size))
		if err == nil && n < size {
			err = io.ErrUnexpectedEOF
		}
		sent <- err
	}()
	raw, err := c.answer()
	if err != nil {
		c.conn.Close() // unblocks the sender
		<-sent
		return "", err
	}
	if err := <-sent; err != nil {
		return "", err
	}
	var s struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", err
	}
	return s.ID, nil
}

// Output asks for the output of a session from offset off.
func (c *Client) Output(id string, off int64) (Output, error) {
	var o Output
	err := c.DoInto(fmt.Sprintf("OUTPUT %s %d", id, off), &o)
	return o, err
}

// Sysroot fetches the daemon's sysroot archive (tar.gz) into w and returns its size.
func (c *Client) Sysroot(w io.Writer) (int64, error) {
	if _, err := io.WriteString(c.conn, "SYSROOT\n"); err != nil {
		return 0, err
	}
	peek, err := c.lines.Reader().Peek(1)
	if err != nil {
		return 0, err
	}
	if peek[0] == '{' {
		_, err := c.answer()
		if err == nil {
			err = errors.New("lantern: unexpected answer to SYSROOT")
		}
		return 0, err
	}
	line, err := c.lines.Next()
	if err != nil {
		return 0, err
	}
	head := string(line)
	f := strings.Fields(head)
	if len(f) != 2 || f[0] != "SYSROOT" {
		return 0, fmt.Errorf("lantern: bad SYSROOT header %q", head)
	}
	size, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil || size < 0 {
		return 0, fmt.Errorf("lantern: bad SYSROOT size %q", f[1])
	}
	n, err := io.CopyN(w, c.lines.Reader(), size)
	return n, err
}
