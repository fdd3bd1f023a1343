package main

import (
	"bufio"
	"net"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/internal/testbin"
)

// TestPrometeuSIGTERMWithStalledClients: 20 DevTools clients that stop reading do not hold
// the process after SIGTERM (issue 12, item 8: it waited for them, 12.8 s in one run and
// forever for a client that never disconnects). Shutdown closes them with a deadline.
func TestPrometeuSIGTERMWithStalledClients(t *testing.T) {
	cmd := exec.Command(testbin.Polydbg(t), "prometeu", "run", "../../examples/cartridges/colorsquare", "--fps", "0", "--devtools", "127.0.0.1:0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(stderr)
	var addr string
	for sc.Scan() {
		if a, ok := strings.CutPrefix(sc.Text(), "prometeu: DevTools listening on "); ok {
			addr = a
			break
		}
	}
	go func() {
		for sc.Scan() {
		}
	}()
	if addr == "" {
		t.Fatal("no DevTools address")
	}
	var conns []net.Conn
	for range 20 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if tc, ok := c.(*net.TCPConn); ok {
			tc.SetReadBuffer(4096) // fills sooner: the server's writes block
		}
		c.Write([]byte(`{"type":"start","id":1}` + "\n"))
		conns = append(conns, c)
	}
	// Let the event queues fill the sockets; the clients never read.
	flood := []byte(strings.Repeat(`{"type":"getFramebuffer","id":2}`+"\n", 2000))
	for _, c := range conns {
		c.SetWriteDeadline(time.Now().Add(2 * time.Second))
		c.Write(flood)
	}
	time.Sleep(500 * time.Millisecond)
	if d := terminate(t, cmd, 15*time.Second); d > 5*time.Second {
		t.Errorf("SIGTERM took %v", d)
	}
}
