package main

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
