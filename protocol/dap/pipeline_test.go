package dap

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"testing"
	"time"
)

// A client that writes thousands of requests before it reads any answer, over real pipes (an
// OS pipe holds 64 KiB; io.Pipe holds nothing): Serve reads them all, the answers wait in its
// outbox, and every response arrives, in order. Writing straight to the pipe, Serve blocks
// on an answer not yet read and stops reading; the client blocks writing: both wait for ever.
func TestPipelinedRequestsAreAllAnswered(t *testing.T) {
	path := writeKite(t, stepLoop)
	inR, inW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inR.Close(); inW.Close(); outR.Close(); outW.Close() })
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, inR, outW, Options{}); outW.Close() }()
	out := bufio.NewReaderSize(outR, 1<<20)
	seq := 0
	send := func(command, args string) error {
		seq++
		return WriteFrame(inW, fmt.Appendf(nil, `{"seq":%d,"type":"request","command":%q%s}`, seq, command, args))
	}
	await := func(what string) []byte {
		t.Helper()
		for {
			body, err := ReadFrame(out, MaxFrame)
			if err != nil {
				t.Fatalf("output ended before %s: %v", what, err)
			}
			if bytes.Contains(body, []byte(what)) {
				return body
			}
		}
	}
	for _, r := range [][2]string{{"initialize", `,"arguments":{"adapterID":"t"}`},
		{"launch", fmt.Sprintf(`,"arguments":{"program":%q,"stopOnEntry":true}`, path)}, {"configurationDone", ""}} {
		if err := send(r[0], r[1]); err != nil {
			t.Fatal(err)
		}
	}
	await(`"event":"stopped"`)

	// The requests (about 70 bytes each) outweigh what the pipe and Serve's reader hold
	// (128 KiB); the answers (about 150 bytes each) stay under wire.OutboxMax.
	const requests = 4000
	first := seq + 1
	wrote := make(chan error, 1)
	go func() {
		var err error
		for i := 0; i < requests && err == nil; i++ {
			err = send("threads", "")
		}
		wrote <- err
	}()
	select {
	case err := <-wrote:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("the client could not write its %d requests: Serve stopped reading, blocked on answers the client has not read yet", requests)
	}
	for n := range requests {
		want := fmt.Appendf(nil, `"request_seq":%d,"success":true,"command":"threads"`, first+n)
		if body := await(`"type":"response"`); !bytes.Contains(body, want) {
			t.Fatalf("response %d of %d: %s", n+1, requests, body)
		}
	}
	if err := send("disconnect", ""); err != nil {
		t.Fatal(err)
	}
	await(`"command":"disconnect"`)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Serve did not return after disconnect")
	}
}
