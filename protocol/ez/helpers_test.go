package ez

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// ev is one event line as the IDE receives it.
type ev struct {
	Event string
	Data  map[string]any
	Raw   string
}

func (e ev) num(key string) int {
	f, _ := e.Data[key].(float64)
	return int(f)
}

func (e ev) str(key string) string {
	s, _ := e.Data[key].(string)
	return s
}

// loc returns the line of the event's location.
func (e ev) line() int {
	l, _ := e.Data["location"].(map[string]any)
	f, _ := l["line"].(float64)
	return int(f)
}

// client plays the IDE: it writes command lines and reads event lines.
type client struct {
	t      *testing.T
	w      io.WriteCloser
	events chan ev
	done   chan error // Serve's result (in-process clients)
	seen   []string   // every line received, for failure messages
	closed bool
}

const waitEvent = 10 * time.Second

// newClient runs a server in process over pipes.
func newClient(t *testing.T, opts Options) *client {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := newPipeClient(t, inW, outR)
	c.done = make(chan error, 1)
	go func() {
		err := Serve(context.Background(), inR, outW, opts)
		outW.Close()
		inR.Close()
		c.done <- err
	}()
	t.Cleanup(func() { c.close() })
	return c
}

// newPipeClient talks to a server through w (its input) and r (its output).
func newPipeClient(t *testing.T, w io.WriteCloser, r io.Reader) *client {
	c := &client{t: t, w: w, events: make(chan ev, 1024)}
	go func() {
		defer close(c.events)
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 1<<16), 64<<20)
		for sc.Scan() {
			var m struct {
				Type  string         `json:"type"`
				Event string         `json:"event"`
				Data  map[string]any `json:"data"`
			}
			line := sc.Text()
			if err := json.Unmarshal([]byte(line), &m); err != nil || m.Type != "event" || m.Data == nil {
				c.events <- ev{Event: "!invalid", Raw: line}
				continue
			}
			c.events <- ev{Event: m.Event, Data: m.Data, Raw: line}
		}
	}()
	return c
}

// send writes one command.
func (c *client) send(cmd string, params any) {
	c.t.Helper()
	if params == nil {
		params = map[string]any{}
	}
	b, err := json.Marshal(map[string]any{"type": "command", "command": cmd, "params": params})
	if err != nil {
		c.t.Fatal(err)
	}
	c.raw(string(b) + "\n")
}

func (c *client) raw(s string) {
	c.t.Helper()
	if _, err := io.WriteString(c.w, s); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// next returns the next event.
func (c *client) next() ev {
	c.t.Helper()
	select {
	case e, ok := <-c.events:
		if !ok {
			c.t.Fatalf("event stream ended; got:\n%s", strings.Join(c.seen, "\n"))
		}
		c.seen = append(c.seen, e.Raw)
		if e.Event == "!invalid" {
			c.t.Fatalf("invalid event line %q", e.Raw)
		}
		return e
	case <-time.After(waitEvent):
		c.t.Fatalf("timed out waiting for an event; got:\n%s", strings.Join(c.seen, "\n"))
	}
	return ev{}
}

// expect returns the next event, which must be name.
func (c *client) expect(name string) ev {
	c.t.Helper()
	e := c.next()
	if e.Event != name {
		c.t.Fatalf("got %s, want %s; events so far:\n%s", e.Raw, name, strings.Join(c.seen, "\n"))
	}
	return e
}

// skipTo returns the next event named name, skipping others (output, variableUpdate...).
func (c *client) skipTo(name string) ev {
	c.t.Helper()
	for {
		if e := c.next(); e.Event == name {
			return e
		}
	}
}

// expectError returns the next event, which must be an error about cmd containing want.
func (c *client) expectError(cmd, want string) ev {
	c.t.Helper()
	e := c.expect("error")
	if e.str("command") != cmd || !strings.Contains(e.str("message"), want) {
		c.t.Fatalf("error %s, want command %q and message containing %q", e.Raw, cmd, want)
	}
	return e
}

// stopped expects a stopped event with reason at line (any line when 0).
func (c *client) stopped(reason string, line int) ev {
	c.t.Helper()
	e := c.expect("stopped")
	if e.str("reason") != reason || (line > 0 && e.line() != line) {
		c.t.Fatalf("got %s, want stop %s at line %d", e.Raw, reason, line)
	}
	return e
}

// vars asks for a frame's variables and returns them by name ("name=value:type").
func (c *client) vars(frame int) map[string]string {
	c.t.Helper()
	c.send("getVariables", map[string]any{"frameIndex": frame})
	e := c.expect("variables")
	out := map[string]string{}
	list, _ := e.Data["variables"].([]any)
	for _, x := range list {
		m := x.(map[string]any)
		out[m["name"].(string)] = fmt.Sprintf("%v:%v", m["value"], m["type"])
	}
	return out
}

// stack asks for the stack and returns "function:line" per frame.
func (c *client) stack() []string {
	c.t.Helper()
	c.send("getStackTrace", nil)
	e := c.expect("stackTrace")
	var out []string
	for _, x := range e.Data["frames"].([]any) {
		m := x.(map[string]any)
		out = append(out, fmt.Sprintf("%v:%v", m["function"], m["line"]))
	}
	return out
}

func (c *client) eval(expr string, frame int) ev {
	c.t.Helper()
	c.send("evaluate", map[string]any{"expression": expr, "frameIndex": frame})
	return c.next()
}

// close ends the input and waits for the server to return.
func (c *client) close() error {
	if c.closed {
		return nil
	}
	c.closed = true
	c.w.Close()
	if c.done == nil {
		return nil
	}
	select {
	case err := <-c.done:
		return err
	case <-time.After(waitEvent):
		c.t.Errorf("server did not return after end of input")
		return nil
	}
}

// rest closes the input and returns the events written until the server returned.
func (c *client) rest() []string {
	c.t.Helper()
	if err := c.close(); err != nil {
		c.t.Fatalf("serve: %v", err)
	}
	var names []string
	for e := range c.events {
		c.seen = append(c.seen, e.Raw)
		if e.Event == "!invalid" {
			c.t.Fatalf("invalid event line %q", e.Raw)
		}
		names = append(names, e.Event)
	}
	return names
}

// prog copies a testdata program into a temporary directory and returns its path.
func prog(t *testing.T, name string) string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, src, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// initialized starts a client and loads file.
func initialized(t *testing.T, file string) *client {
	t.Helper()
	c := newClient(t, Options{})
	c.send("initialize", map[string]any{"file": file})
	if e := c.expect("initialized"); e.str("file") != file {
		t.Fatalf("initialized %s, want file %s", e.Raw, file)
	}
	return c
}

// subset reports whether every key of want is in got with an equal value (recursively for
// objects), so that documented examples match events that carry our extension fields.
func subset(want, got any) bool {
	wm, ok := want.(map[string]any)
	if !ok {
		return reflect.DeepEqual(want, got)
	}
	gm, ok := got.(map[string]any)
	if !ok {
		return false
	}
	for k, v := range wm {
		if !subset(v, gm[k]) {
			return false
		}
	}
	return true
}
