package aura

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// These tests call Run in the test process, so that the race detector sees the package's
// goroutines (the binary the other tests run is built without it).

type inproc struct {
	t      *testing.T
	stdin  *io.PipeWriter
	lines  chan string
	code   chan int
	stderr *lockedBuf
}

type lockedBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func runInProcess(t *testing.T, cfg Config) *inproc {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	p := &inproc{t: t, stdin: inW, lines: make(chan string, 1000), code: make(chan int, 1), stderr: &lockedBuf{}}
	cfg.Stdin, cfg.Stdout, cfg.Stderr, cfg.Protocol = inR, outW, p.stderr, true
	go func() {
		p.code <- Run(context.Background(), cfg)
		outW.Close()
	}()
	go func() {
		defer close(p.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(make([]byte, 1<<20), 1<<22)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		inR.Close()
	})
	return p
}

func (p *inproc) send(s string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, s+"\n"); err != nil {
		p.t.Fatal(err)
	}
}

// expect returns the JSON of the next event named name, skipping other lines.
func (p *inproc) expect(name string) json.RawMessage {
	p.t.Helper()
	timeout := time.After(deadline)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				p.t.Fatalf("output ended before %s; stderr %s", name, p.stderr.String())
			}
			if rest, ok := strings.CutPrefix(l, EventPrefix); ok {
				var head struct{ Event string }
				_ = json.Unmarshal([]byte(rest), &head)
				if head.Event == name {
					return json.RawMessage(rest)
				}
			}
		case <-timeout:
			p.t.Fatalf("timed out waiting for %s", name)
		}
	}
}

func (p *inproc) exit() int {
	p.t.Helper()
	for range p.lines {
	}
	select {
	case c := <-p.code:
		return c
	case <-time.After(deadline):
		p.t.Fatal("Run did not return")
	}
	return -1
}

func TestInProcessDevVM(t *testing.T) {
	p := runInProcess(t, Config{File: "testdata/loop.kite", WaitEnable: true})
	p.expect("hello")
	p.send(`{"cmd":"setBreakpoints","breakpoints":[{"line":9,"condition":"i == 7"}]}`)
	p.send(`{"cmd":"setWatches","watches":["total"]}`)
	p.send(`{"cmd":"enable","startPaused":false}`)
	st := decode[StoppedEvent](t, p.expect("stopped"))
	if st.Line != 9 || st.Env["i"] != "7" || *st.Watches[0].Value != "21" {
		t.Fatalf("stop %+v", st)
	}
	p.send(`{"cmd":"setWatches","watches":["i"]}`)
	p.expect("watches")
	p.send(`{"cmd":"stepIn"}`)
	p.expect("stopped")
	p.send(`bad line`)
	p.stdin.Close() // detach: the program runs to its end
	if code := p.exit(); code != 3 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(p.stderr.String(), "ignored command line") {
		t.Fatalf("stderr %q", p.stderr.String())
	}
}

func TestInProcessTerminate(t *testing.T) {
	p := runInProcess(t, Config{File: "testdata/spin.kite"})
	p.send(`{"cmd":"pause"}`)
	p.expect("stopped")
	p.send(`{"cmd":"continue"}`)
	p.send(`{"cmd":"terminate"}`)
	p.expect("perfReport")
	p.expect("terminated")
	if code := p.exit(); code != ExitTerminated {
		t.Fatalf("exit %d", code)
	}
}

func TestInProcessNative(t *testing.T) {
	p := runInProcess(t, Config{File: nativeProg(t), Args: []string{"fork"}, WaitEnable: true})
	p.send(`{"cmd":"setBreakpoints","breakpoints":[1]}`)
	p.send(`{"cmd":"enable"}`)
	p.expect("nativeLaunch")
	p.send(`{"cmd":"step"}`)
	p.send(`{"cmd":"terminate"}`)
	p.expect("terminated")
	p.expect("nativeExit")
	if code := p.exit(); code != 128+15 {
		t.Fatalf("exit %d", code)
	}
}

// A client that does not wait: with the next steps already queued, every stopped event
// still carries the variables and watches of its own stop (issue: 5 of 20 runs carried an
// empty env and "the program is running" watches).
func TestPipelinedStepsKeepEachStopsData(t *testing.T) {
	for run := range 20 {
		p := runInProcess(t, Config{File: "testdata/loop.kite", WaitEnable: true})
		p.expect("hello")
		p.send(`{"cmd":"setBreakpoints","breakpoints":[{"line":9}]}` + "\n" +
			`{"cmd":"setWatches","watches":["total + 1"]}` + "\n" +
			`{"cmd":"enable","startPaused":false}`)
		stops := []StoppedEvent{decode[StoppedEvent](t, p.expect("stopped"))}
		// Steps sent while a step runs are refused (noted on stderr); those that land each
		// give a stop, whose event must describe that stop.
		p.send(`{"cmd":"step"}` + "\n" + `{"cmd":"step"}` + "\n" + `{"cmd":"step"}`)
		time.Sleep(200 * time.Millisecond)
		p.send(`{"cmd":"terminate"}`)
		p.stdin.Close()
		for l := range p.lines {
			if rest, ok := strings.CutPrefix(l, EventPrefix); ok && strings.Contains(rest, `"event":"stopped"`) {
				stops = append(stops, decode[StoppedEvent](t, json.RawMessage(rest)))
			}
		}
		if len(stops) < 2 {
			t.Fatalf("run %d: %d stops; stderr %s", run, len(stops), p.stderr.String())
		}
		for i, st := range stops {
			if len(st.Env) == 0 || len(st.Watches) != 1 || st.Watches[0].Error != "" || st.Watches[0].Value == nil {
				t.Fatalf("run %d, stop %d: %+v", run, i, st)
			}
			if want := fmt.Sprint(atoi(t, st.Env["total"]) + 1); *st.Watches[0].Value != want {
				t.Fatalf("run %d, stop %d: watch %s with total %s", run, i, *st.Watches[0].Value, st.Env["total"])
			}
		}
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatalf("%q is not a number", s)
	}
	return n
}
