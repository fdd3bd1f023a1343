package ez

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// stepLoopProgram never ends and changes a variable at every statement, so every step
// stops again with a variableUpdate, as in a real stepping session.
const stepLoopProgram = `let i = 0
let total = 0
while true {
    i += 1
    total += i
}
`

// stepServer is a server stopped in stepLoopProgram, driven without the reader goroutine:
// step runs one stepInto command to its stopped event, as Serve's loop would.
type stepServer struct {
	srv     *server
	timeout <-chan time.Time
}

func newStepServer(tb testing.TB) *stepServer {
	tb.Helper()
	file := filepath.Join(tb.TempDir(), "loop.kite")
	if err := os.WriteFile(file, []byte(stepLoopProgram), 0o644); err != nil {
		tb.Fatal(err)
	}
	srv := newServer(io.Discard, Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	srv.handleLine([]byte(fmt.Sprintf(`{"type":"command","command":"initialize","params":{"file":%q}}`, file)))
	srv.handleLine([]byte(`{"type":"command","command":"start","params":{"stopOnEntry":true}}`))
	ss := &stepServer{srv: srv, timeout: time.After(time.Minute)}
	ss.settle(tb)
	tb.Cleanup(srv.closeSession)
	return ss
}

// settle waits for the program to stop and writes its events, as Serve's loop does.
func (ss *stepServer) settle(tb testing.TB) {
	s := ss.srv.sess
	for !s.reportedStop {
		select {
		case <-s.sub.Ready():
			ss.srv.drain()
		case <-ss.timeout:
			tb.Fatal("the program did not stop")
		}
	}
	if err := ss.srv.flush(); err != nil {
		tb.Fatal(err)
	}
}

var stepInto = []byte(`{"type":"command","command":"stepInto","params":{}}`)

func (ss *stepServer) step(tb testing.TB) {
	ss.srv.handleLine(stepInto)
	ss.settle(tb)
}

// BenchmarkStepInProcess: the CPU a stepInto costs in process, from its command line to its
// stopped and variableUpdate events written (no pipes, no reader goroutine).
func BenchmarkStepInProcess(b *testing.B) {
	ss := newStepServer(b)
	b.ReportAllocs()
	for b.Loop() {
		ss.step(b)
	}
}

// A stepInto, from its command line to its stopped and variableUpdate events written,
// allocates a bounded, small number of objects (engine, VM and EZ together): a regression
// on the step's hot path fails here. Measured: 19 (before the fast JSON and the in-place
// diff: 29).
func TestStepAllocations(t *testing.T) {
	ss := newStepServer(t)
	ss.step(t)
	n := testing.AllocsPerRun(200, func() { ss.step(t) })
	t.Logf("%v allocations a step", n)
	if n > 22 {
		t.Errorf("a step allocates %v objects, want at most 22", n)
	}
}
