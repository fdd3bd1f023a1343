package bench

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/polydbg/polydbg/backend/kitevm"
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/kite"
	"github.com/polydbg/polydbg/protocol/ez"
)

// ezProgram never ends, so every stepInto stops again; each step changes a variable, so
// every stop also carries a variableUpdate event, as in a real stepping session.
const ezProgram = `let i = 0
let total = 0
while true {
    i += 1
    total += i
}
`

// builtBinary is a program built once per benchmark run.
type builtBinary struct {
	once sync.Once
	path string
	err  error
}

// get builds the package pkg (relative to dir) into a temporary file named name, once.
func (bb *builtBinary) get(b *testing.B, dir, pkg, name string) string {
	bb.once.Do(func() {
		tmp, err := os.MkdirTemp("", "bench-"+name+"-")
		if err != nil {
			bb.err = err
			return
		}
		bb.path = filepath.Join(tmp, name)
		if out, err := exec.Command(goTool(), "build", "-C", dir, "-o", bb.path, pkg).CombinedOutput(); err != nil {
			bb.err = fmt.Errorf("%v\n%s", err, out)
		}
	})
	if bb.err != nil {
		b.Fatalf("building %s: %v", name, bb.err)
	}
	return bb.path
}

var polydbgBin builtBinary

// polydbgBinary builds the real binary from the main module once, or is $POLYDBG_BIN when
// set (to alternate rounds with a binary built from other code).
func polydbgBinary(b *testing.B) string {
	if p := os.Getenv("POLYDBG_BIN"); p != "" {
		return p
	}
	return polydbgBin.get(b, "..", "./cmd/polydbg", "polydbg")
}

// ezConn is the IDE side of an EZ session.
type ezConn struct {
	w io.Writer
	r *bufio.Reader
}

func (c *ezConn) send(b *testing.B, line string) {
	if _, err := io.WriteString(c.w, line+"\n"); err != nil {
		b.Fatal(err)
	}
}

// until reads lines until one holds `"event":"name"`.
func (c *ezConn) until(b *testing.B, name string) string {
	want := `"event":"` + name + `"`
	for {
		line, err := c.r.ReadString('\n')
		if err != nil {
			b.Fatalf("reading events: %v", err)
		}
		if strings.Contains(line, want) {
			return line
		}
		if strings.Contains(line, `"event":"error"`) || strings.Contains(line, `"event":"exited"`) {
			b.Fatalf("unexpected %s", line)
		}
	}
}

// stepLoop measures stepInto -> stopped b.N times and reports p50, p99 and steps/s.
func stepLoop(b *testing.B, c *ezConn, file string) {
	c.send(b, fmt.Sprintf(`{"type":"command","command":"initialize","params":{"file":%q}}`, file))
	c.until(b, "initialized")
	c.send(b, `{"type":"command","command":"start","params":{}}`)
	c.until(b, "stopped")
	const step = `{"type":"command","command":"stepInto","params":{}}`
	for range 200 { // warm up
		c.send(b, step)
		c.until(b, "stopped")
	}
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		t0 := time.Now()
		c.send(b, step)
		c.until(b, "stopped")
		lat = append(lat, time.Since(t0))
	}
	total := time.Since(start)
	b.StopTimer()
	reportLatencies(b, lat, total)
	c.send(b, `{"type":"command","command":"terminate","params":{}}`)
	c.until(b, "terminated")
}

func reportLatencies(b *testing.B, lat []time.Duration, total time.Duration) {
	slices.Sort(lat)
	q := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Nanoseconds()) / 1e3
	}
	b.ReportMetric(q(0.50), "p50-µs")
	b.ReportMetric(q(0.99), "p99-µs")
	b.ReportMetric(float64(len(lat))/total.Seconds(), "steps/s")
}

func writeEZProgram(b *testing.B) string {
	file := filepath.Join(b.TempDir(), "loop.kite")
	if err := os.WriteFile(file, []byte(ezProgram), 0o644); err != nil {
		b.Fatal(err)
	}
	return file
}

// BenchmarkEZStepRoundTrip: an IDE's stepInto until its stopped event.
//
//   - process: a real "polydbg ez" process, over its stdin/stdout pipes;
//   - os-pipe: ez.Serve in this process, over os.Pipe (the same syscalls, no process);
//   - engine: the baseline with no protocol: engine.Session.Step until the stopped event.
func BenchmarkEZStepRoundTrip(b *testing.B) {
	b.Run("process", func(b *testing.B) {
		file := writeEZProgram(b)
		p := pipeProcOf(b, exec.Command(polydbgBinary(b), "ez"))
		stepLoop(b, &ezConn{w: p.w, r: p.r}, file)
	})
	b.Run("os-pipe", func(b *testing.B) {
		file := writeEZProgram(b)
		inR, inW, err := os.Pipe()
		if err != nil {
			b.Fatal(err)
		}
		outR, outW, err := os.Pipe()
		if err != nil {
			b.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			done <- ez.Serve(context.Background(), inR, outW, ez.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
			outW.Close()
		}()
		stepLoop(b, &ezConn{w: inW, r: bufio.NewReaderSize(outR, 64<<10)}, file)
		inW.Close()
		if err := <-done; err != nil {
			b.Fatal(err)
		}
		inR.Close()
		outR.Close()
	})
	b.Run("engine", func(b *testing.B) {
		prog, err := kite.Compile("loop.kite", []byte(ezProgram), nil)
		if err != nil {
			b.Fatal(err)
		}
		tg, err := kitevm.New(prog, kitevm.Options{})
		if err != nil {
			b.Fatal(err)
		}
		s := engine.NewSession(tg)
		sub := s.Subscribe()
		defer s.Close()
		stopped := func() {
			for e := range sub.Events() {
				if e.Kind == engine.EventStopped {
					return
				}
			}
			b.Fatal("session ended")
		}
		if err := s.Start(true); err != nil {
			b.Fatal(err)
		}
		stopped()
		lat := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		start := time.Now()
		for range b.N {
			t0 := time.Now()
			if err := s.Step(engine.StepInto); err != nil {
				b.Fatal(err)
			}
			stopped()
			lat = append(lat, time.Since(t0))
		}
		total := time.Since(start)
		b.StopTimer()
		reportLatencies(b, lat, total)
	})
}

// goTool is the go command that runs these benchmarks: the one go test put first on PATH,
// else the one under $GOROOT.
func goTool() string {
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	return filepath.Join(os.Getenv("GOROOT"), "bin", "go")
}
