package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/protocol/dap"
)

func TestDAPListenRule(t *testing.T) {
	var errb bytes.Buffer
	if code := runDAP(context.Background(), []string{"--listen", "0.0.0.0:0"}, nil, io.Discard, &errb); code != 2 ||
		!strings.Contains(errb.String(), "needs --token-file") {
		t.Errorf("beyond loopback without a token: %d %q", code, errb.String())
	}
	empty := filepath.Join(t.TempDir(), "token")
	os.WriteFile(empty, nil, 0o600)
	errb.Reset()
	if code := runDAP(context.Background(), []string{"--token-file", empty}, nil, io.Discard, &errb); code != 2 {
		t.Errorf("empty token file: %d %q", code, errb.String())
	}
}

func TestDAPStdio(t *testing.T) {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan int, 1)
	go func() { done <- runDAP(context.Background(), nil, inR, outW, io.Discard); outW.Close() }()
	go func() {
		dap.WriteFrame(inW, []byte(`{"seq":1,"type":"request","command":"initialize","arguments":{"adapterID":"t"}}`))
		inW.Close() // the editor goes away
	}()
	body, err := dap.ReadFrame(bufio.NewReader(outR), 1<<20)
	if err != nil || !bytes.Contains(body, []byte(`"supportsConfigurationDoneRequest":true`)) {
		t.Fatalf("initialize over stdio: %s %v", body, err)
	}
	go io.Copy(io.Discard, outR)
	if code := <-done; code != 0 {
		t.Errorf("exit code %d after the end of stdin", code)
	}
}

// Over --listen, a connection's answers are written with raw write(2) calls on its socket
// (tryWriter): a request is answered, and an interrupt ends the server.
func TestDAPListen(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errR, errW := io.Pipe()
	done := make(chan int, 1)
	go func() { done <- runDAP(ctx, []string{"--listen", "127.0.0.1:0"}, nil, io.Discard, errW); errW.Close() }()
	stderr := bufio.NewReader(errR)
	line, err := stderr.ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "dap: serving on ")
	if err != nil || !ok {
		t.Fatalf("first line on stderr: %q %v", line, err)
	}
	go io.Copy(io.Discard, stderr)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if tryWriter(c) == io.Writer(c) {
		t.Fatal("a TCP connection is not written as a wire.TryWriter")
	}
	c.SetDeadline(time.Now().Add(20 * time.Second))
	dap.WriteFrame(c, []byte(`{"seq":1,"type":"request","command":"initialize","arguments":{"adapterID":"t"}}`))
	body, err := dap.ReadFrame(bufio.NewReader(c), 1<<20)
	if err != nil || !bytes.Contains(body, []byte(`"supportsConfigurationDoneRequest":true`)) {
		t.Fatalf("initialize over TCP: %s %v", body, err)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Errorf("exit code %d after an interrupt", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the server did not end after an interrupt")
	}
}
