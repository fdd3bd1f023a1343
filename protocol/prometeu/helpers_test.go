package prometeu

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/polydbg/polydbg/console"
	"github.com/polydbg/polydbg/engine"
)

// runtime is a console session served on a loopback port.
type runtime struct {
	t    *testing.T
	srv  *Server
	sess *engine.Session
	con  *console.Console
	addr string
}

func startRuntime(t *testing.T, dir string, opts console.Options, wait bool) *runtime {
	t.Helper()
	return startRuntimeWith(t, dir, opts, Options{Waiting: wait, AppMode: "Debug"})
}

func startRuntimeWith(t *testing.T, dir string, opts console.Options, sopts Options) *runtime {
	t.Helper()
	wait := sopts.Waiting
	cart, err := console.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	con, err := console.New(cart, opts)
	if err != nil {
		t.Fatal(err)
	}
	sess := engine.NewSession(con.Target())
	srv := New(sess, con, sopts)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		sess.Close()
		srv.Close(time.Second)
	})
	if err := srv.Start(wait); err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	return &runtime{t: t, srv: srv, sess: sess, con: con, addr: ln.Addr().String()}
}

// pcOfLine is the first pc of the statement on line.
func (r *runtime) pcOfLine(line int) int {
	pcs := r.con.Cartridge().Program.StmtPCs(line)
	if len(pcs) == 0 {
		r.t.Fatalf("no statement on line %d", line)
	}
	return pcs[0]
}

type msg = map[string]any

// tclient is a test client on a real TCP connection.
type tclient struct {
	t       *testing.T
	c       net.Conn
	r       *bufio.Reader
	pending []msg // read but not yet consumed
	nextID  int
}

func dial(t *testing.T, addr string) *tclient {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &tclient{t: t, c: c, r: bufio.NewReader(c)}
}

// attach connects and answers the handshake with ok.
func attach(t *testing.T, addr string) *tclient {
	c := dial(t, addr)
	if h := c.read(); h["type"] != "handshake" {
		t.Fatalf("first message %v", h)
	}
	c.request("ok", nil)
	return c
}

func (c *tclient) sendLine(s string) {
	c.t.Helper()
	if _, err := c.c.Write([]byte(s + "\n")); err != nil {
		c.t.Fatal(err)
	}
}

// read reads the next message from the connection.
func (c *tclient) read() msg {
	c.t.Helper()
	c.c.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := c.r.ReadBytes('\n')
	if err != nil {
		c.t.Fatalf("read: %v", err)
	}
	var m msg
	d := json.NewDecoder(bytesReader(line))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		c.t.Fatalf("bad message %q: %v", line, err)
	}
	return m
}

// request sends a request with a fresh id and returns its response; events read on the
// way are kept for event().
func (c *tclient) request(typ string, params msg) msg {
	c.t.Helper()
	c.nextID++
	id := c.nextID
	m := msg{"type": typ, "id": id}
	for k, v := range params {
		m[k] = v
	}
	b, _ := json.Marshal(m)
	c.sendLine(string(b))
	for {
		r := c.read()
		if r["type"] == "response" && fmt.Sprint(r["id"]) == fmt.Sprint(id) {
			return r
		}
		c.pending = append(c.pending, r)
	}
}

// must is request that fails the test on an error response.
func (c *tclient) must(typ string, params msg) msg {
	c.t.Helper()
	r := c.request(typ, params)
	if r["ok"] != true {
		c.t.Fatalf("%s: %v", typ, r)
	}
	return r
}

// event returns the next message of one of the given types, dropping others.
func (c *tclient) event(types ...string) msg {
	c.t.Helper()
	for {
		var m msg
		if len(c.pending) > 0 {
			m, c.pending = c.pending[0], c.pending[1:]
		} else {
			m = c.read()
		}
		for _, t := range types {
			if m["type"] == t {
				return m
			}
		}
	}
}

func num(v any) int64 {
	n, err := v.(json.Number).Int64()
	if err != nil {
		panic(fmt.Sprintf("not an int: %v", v))
	}
	return n
}

func cartDir(name string) string {
	if name == "counter" {
		return filepath.Join("testdata", "counter")
	}
	return filepath.Join("..", "..", "examples", "cartridges", name)
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }
