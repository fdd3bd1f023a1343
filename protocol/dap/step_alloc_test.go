package dap

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/internal/wire"
)

// stepLoop never ends and changes its locals at every statement, in a function, as
// bench/steps_test.go steps it.
const stepLoop = `fn main() {
    let i = 0
    let total = 0
    while true {
        i += 1
        total += i
    }
}
main()
`

// stepConn is a connection stopped in stepLoop, driven without the reader and pump
// goroutines: step handles one next request and writes the stopped event that follows, as
// Serve's goroutines would.
type stepConn struct {
	c       *conn
	out     roomyBuffer
	next    []byte
	timeout <-chan time.Time
}

func newStepConn(tb testing.TB) *stepConn {
	tb.Helper()
	path := writeKite(tb, stepLoop)
	sc := &stepConn{timeout: time.After(time.Minute)}
	c := &conn{opts: Options{MaxFrame: MaxFrame, Owner: "dap"}, codec: newCodec(), w: wire.NewOutbox(&sc.out),
		log: slog.New(slog.NewTextHandler(io.Discard, nil)), cancelled: map[int]bool{}, authed: true}
	c.subCh, c.quit = make(chan struct{}, 1), make(chan struct{})
	sc.c = c
	tb.Cleanup(func() { c.locked(c.closeDebuggee) })
	ctx := context.Background()
	for i, req := range []string{
		`{"seq":1,"type":"request","command":"initialize","arguments":{"adapterID":"t"}}`,
		fmt.Sprintf(`{"seq":2,"type":"request","command":"launch","arguments":{"program":%q}}`, path),
		fmt.Sprintf(`{"seq":3,"type":"request","command":"setBreakpoints","arguments":{"source":{"path":%q},"breakpoints":[{"line":5}]}}`, path),
		`{"seq":4,"type":"request","command":"configurationDone"}`,
	} {
		c.handle(ctx, []byte(req), false)
		if !bytes.Contains(sc.out.Bytes(), fmt.Appendf(nil, `"request_seq":%d,"success":true`, i+1)) {
			tb.Fatalf("request %d: %s", i+1, sc.out.Bytes())
		}
	}
	sc.settle(tb)
	c.handle(ctx, fmt.Appendf(nil, `{"seq":5,"type":"request","command":"setBreakpoints","arguments":{"source":{"path":%q},"breakpoints":[]}}`, path), false)
	sc.out.Reset()
	sc.next = []byte(`{"seq":9,"type":"request","command":"next","arguments":{"threadId":1}}`)
	return sc
}

// roomyBuffer always has room, as a pipe the client reads at once: the connection's outbox
// writes to it on the goroutine that flushes.
type roomyBuffer struct{ bytes.Buffer }

func (b *roomyBuffer) TryWrite(p []byte) (int, error) { return b.Write(p) }

// settle waits for the stopped event, written by the pump's drain, and forgets the output.
func (sc *stepConn) settle(tb testing.TB) {
	for !bytes.Contains(sc.out.Bytes(), []byte(`"event":"stopped"`)) {
		select {
		case <-sc.c.sub.Ready():
			sc.c.locked(sc.c.drain)
		case <-sc.timeout:
			tb.Fatalf("no stop: %s", sc.out.Bytes())
		}
	}
	sc.out.Reset()
}

func (sc *stepConn) step(tb testing.TB) {
	sc.c.handle(context.Background(), sc.next, false)
	sc.settle(tb)
}

// BenchmarkStepInProcess: the CPU a next request costs in process, from its frame's body to
// its response and stopped event written (no pipes, no goroutines of the connection).
//
//	GOMAXPROCS=1 go test ./protocol/dap -run '^$' -bench StepInProcess -benchtime 100000x
func BenchmarkStepInProcess(b *testing.B) {
	sc := newStepConn(b)
	b.ReportAllocs()
	for b.Loop() {
		sc.step(b)
	}
}

// A next request, from its frame's body to its response and stopped event written,
// allocates a bounded, small number of objects (engine, VM and DAP together): a regression
// on the step's hot path (encoding/json back on it, a cancel context per request) fails
// here. Measured: 8 (before wirejson and the burst gathered in the connection: 32).
func TestStepAllocations(t *testing.T) {
	sc := newStepConn(t)
	sc.step(t)
	n := testing.AllocsPerRun(200, func() { sc.step(t) })
	t.Logf("%v allocations a step", n)
	if n > 11 {
		t.Errorf("a next request allocates %v objects, want at most 11", n)
	}
	// and, on one processor (as on stdio), the stop's event left with the response
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	sc.c.handle(context.Background(), sc.next, false)
	out := sc.out.String()
	if strings.Count(out, "Content-Length") != 2 || !strings.Contains(out, `"command":"next"`) ||
		!strings.Contains(out, `"event":"stopped"`) {
		t.Errorf("after next, one burst should hold the response and the stop: %q", out)
	}
}

// BenchmarkStepServe: a next request to its stopped event through Serve and its goroutines
// (reader, event pump), over io.Pipe, in process: with GOMAXPROCS=1 its time is the CPU
// a step costs the connection, hand-offs between goroutines included.
//
//	GOMAXPROCS=1 go test ./protocol/dap -run '^$' -bench StepServe -benchtime 100000x
func BenchmarkStepServe(b *testing.B) {
	path := writeKite(b, stepLoop)
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, sr, sw, Options{}); sw.Close() }()
	b.Cleanup(func() { cancel(); cw.Close(); <-done })
	r := bufio.NewReader(cr)
	do := func(req, until string) {
		if err := WriteFrame(cw, []byte(req)); err != nil {
			b.Fatal(err)
		}
		for {
			body, err := ReadFrame(r, 1<<20)
			if err != nil {
				b.Fatal(err)
			}
			if bytes.Contains(body, []byte(until)) {
				return
			}
		}
	}
	do(`{"seq":1,"type":"request","command":"initialize","arguments":{"adapterID":"t"}}`, `"command":"initialize"`)
	do(fmt.Sprintf(`{"seq":2,"type":"request","command":"launch","arguments":{"program":%q}}`, path), `"event":"initialized"`)
	do(fmt.Sprintf(`{"seq":3,"type":"request","command":"setBreakpoints","arguments":{"source":{"path":%q},"breakpoints":[{"line":5}]}}`, path), `"command":"setBreakpoints"`)
	do(`{"seq":4,"type":"request","command":"configurationDone"}`, `"event":"stopped"`)
	do(fmt.Sprintf(`{"seq":5,"type":"request","command":"setBreakpoints","arguments":{"source":{"path":%q},"breakpoints":[]}}`, path), `"command":"setBreakpoints"`)
	next := `{"seq":9,"type":"request","command":"next","arguments":{"threadId":1}}`
	b.ReportAllocs()
	for b.Loop() {
		do(next, `"event":"stopped"`)
	}
}
