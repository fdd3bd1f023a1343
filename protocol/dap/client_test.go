package dap

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// testClient speaks DAP to a Serve over pipes, as a client would.
type testClient struct {
	t    *testing.T
	w    io.WriteCloser
	msgs chan map[string]any
	seq  int
	done chan error
}

func newTestClient(t *testing.T, opts Options) *testClient {
	t.Helper()
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	c := &testClient{t: t, w: cw, msgs: make(chan map[string]any, 1024), done: make(chan error, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { c.done <- Serve(ctx, sr, sw, opts); sw.Close() }()
	go func() {
		defer close(c.msgs)
		r := bufio.NewReader(cr)
		for {
			body, err := ReadFrame(r, 64<<20)
			if err != nil {
				return
			}
			var m map[string]any
			if err := json.Unmarshal(body, &m); err != nil {
				t.Errorf("server sent bad JSON %q: %v", body, err)
				return
			}
			c.msgs <- m
		}
	}()
	t.Cleanup(func() {
		cw.Close()
		select {
		case <-c.done:
		case <-time.After(10 * time.Second):
			t.Error("Serve did not return after the client went away")
		}
		cancel()
	})
	return c
}

func (c *testClient) raw(b []byte) {
	c.t.Helper()
	if _, err := c.w.Write(b); err != nil {
		c.t.Fatal(err)
	}
}

// send sends a request and returns its seq.
func (c *testClient) send(command string, args any) int {
	c.t.Helper()
	c.seq++
	b, _ := json.Marshal(map[string]any{"seq": c.seq, "type": "request", "command": command, "arguments": args})
	if err := WriteFrame(c.w, b); err != nil {
		c.t.Fatal(err)
	}
	return c.seq
}

// next returns the next message that satisfies match, failing after a timeout.
func (c *testClient) next(what string, match func(map[string]any) bool) map[string]any {
	c.t.Helper()
	timeout := time.After(10 * time.Second)
	for {
		select {
		case m, ok := <-c.msgs:
			if !ok {
				c.t.Fatalf("connection closed waiting for %s", what)
			}
			if match(m) {
				return m
			}
		case <-timeout:
			c.t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// response waits for the response to request seq.
func (c *testClient) response(seq int) map[string]any {
	c.t.Helper()
	return c.next(fmt.Sprintf("response to %d", seq), func(m map[string]any) bool {
		return m["type"] == "response" && int(m["request_seq"].(float64)) == seq
	})
}

// do sends a request and returns its successful response's body.
func (c *testClient) do(command string, args any) map[string]any {
	c.t.Helper()
	r := c.response(c.send(command, args))
	if r["success"] != true {
		c.t.Fatalf("%s failed: %v", command, r["message"])
	}
	b, _ := r["body"].(map[string]any)
	return b
}

// fail sends a request that must fail and returns its message.
func (c *testClient) fail(command string, args any) string {
	c.t.Helper()
	r := c.response(c.send(command, args))
	if r["success"] != false {
		c.t.Fatalf("%s succeeded, want an error: %v", command, r)
	}
	return r["message"].(string)
}

func (c *testClient) event(name string) map[string]any {
	c.t.Helper()
	m := c.next("event "+name, func(m map[string]any) bool { return m["type"] == "event" && m["event"] == name })
	b, _ := m["body"].(map[string]any)
	return b
}

func writeKite(t testing.TB, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "prog.kite")
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}
