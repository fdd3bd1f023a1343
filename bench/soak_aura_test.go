package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/polydbg/polydbg/internal/testbin"
)

// TestSoakAura drives the Aura front end over its stdio with randomly ordered, pipelined
// commands. Aura answers only setBreakpoints (with a breakpoints event) and setWatches
// while stopped (a watches event); everything else is reported by the stops it causes or
// ignored with a note on stderr. Invariants: one breakpoints event per setBreakpoints, in
// order (each lists as many breakpoints as its command asked for); no stop that no command
// could have caused; every stop's data taken at the stop (its watches never say the
// program is running, its env names the loop's variables); still serving at the end.
func TestSoakAura(t *testing.T) {
	needSoak(t)
	file := soakProgram(t)
	cmd := exec.Command(testbin.Polydbg(t), "aura", "run", "--wait-enable", file)
	cmd.Env = append(os.Environ(), "AURA_DEBUG_PROTOCOL=1")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	stderr, _ := cmd.StderrPipe()
	p := startSoakProc(t, cmd)
	r := &soakReport{name: "Aura (stdio)"}

	rng := rand.New(rand.NewPCG(2, uint64(time.Now().UnixNano())))
	var mu sync.Mutex
	var bpSizes []int // breakpoints asked for by each setBreakpoints not yet answered
	causes := 1       // commands that may cause a stop: enable with startPaused counts one
	var violations []string
	stops := 0
	markerSeen := make(chan struct{}, 1)
	notes := 0
	notesDone := make(chan struct{})
	go func() {
		defer close(notesDone)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.HasPrefix(sc.Text(), "aura: ") {
				mu.Lock()
				notes++
				mu.Unlock()
			}
		}
	}()
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			line, ok := strings.CutPrefix(sc.Text(), "AURA_DEBUG_EVENT ")
			if !ok {
				continue // the program's own output
			}
			var ev struct {
				Event       string            `json:"event"`
				Breakpoints []json.RawMessage `json:"breakpoints"`
				Env         map[string]string `json:"env"`
				Func        string            `json:"func"`
				Watches     []struct {
					Expr, Value, Error string
				} `json:"watches"`
			}
			if err := json.Unmarshal([]byte(line), &ev); err != nil {
				violations = append(violations, "event not JSON: "+line)
				continue
			}
			mu.Lock()
			switch ev.Event {
			case "breakpoints":
				r.resp++
				switch {
				case len(bpSizes) == 0:
					violations = append(violations, "a breakpoints event no setBreakpoints asked for")
				case bpSizes[0] != len(ev.Breakpoints):
					violations = append(violations, fmt.Sprintf("breakpoints event with %d entries answers a set of %d", len(ev.Breakpoints), bpSizes[0]))
					bpSizes = bpSizes[1:]
				default:
					if bpSizes[0] == 1 && strings.Contains(string(ev.Breakpoints[0]), `"requested_line":4242`) {
						select {
						case markerSeen <- struct{}{}:
						default:
						}
					}
					bpSizes = bpSizes[1:]
				}
			case "stopped":
				stops++
				r.resp++
				if stops > causes {
					violations = append(violations, fmt.Sprintf("stop %d with only %d commands that could cause one", stops, causes))
				}
				for _, w := range ev.Watches {
					if strings.Contains(w.Error, "running") {
						violations = append(violations, "a stop's watch taken after the next resume: "+w.Error)
					}
				}
				if ev.Func == "twice" && ev.Env["n"] == "" {
					violations = append(violations, "a stop in twice without n in its env: "+line)
				}
			case "watches":
				r.resp++
			}
			mu.Unlock()
		}
	}()

	send := func(line string, cause bool) {
		mu.Lock()
		if cause {
			causes++
		}
		mu.Unlock()
		r.sent++
		io.WriteString(stdin, line+"\n")
	}
	setBreakpoints := func(lines ...int) {
		var parts []string
		for _, l := range lines {
			parts = append(parts, fmt.Sprintf(`{"line":%d}`, l))
		}
		mu.Lock()
		bpSizes = append(bpSizes, len(lines))
		mu.Unlock()
		send(`{"cmd":"setBreakpoints","breakpoints":[`+strings.Join(parts, ",")+`]}`, false)
	}
	send(`{"cmd":"setWatches","watches":[{"expr":"i"},{"expr":"total + 1"}]}`, false)
	send(`{"cmd":"enable","startPaused":true,"perf":false}`, false)
	end := time.Now().Add(*soakFor)
	for time.Now().Before(end) {
		for range 1 + rng.IntN(20) {
			switch rng.IntN(14) {
			case 0, 1, 2:
				c := []string{"step", "stepIn", "stepOver", "stepOut", "continue", "pause"}[rng.IntN(6)]
				send(`{"cmd":"`+c+`"}`, true)
			case 3:
				var lines []int
				for range rng.IntN(3) {
					lines = append(lines, 1+rng.IntN(14))
				}
				setBreakpoints(lines...)
			case 4:
				send(`{"cmd":"setWatches","watches":["i * 10",{"expr":"d"}]}`, false)
			case 5:
				r.invalid++
				send(`garbage`, false)
			case 6:
				r.invalid++
				send(`{"cmd":"fly"}`, false)
			case 7:
				r.invalid++
				send(`{"cmd":"setBreakpoints","breakpoints":[{"line":"x"}]}`, false)
			case 8:
				r.invalid++
				send(`{"cmd":"setWatches","watches":[{}]}`, false)
			case 9:
				r.invalid++
				send(`{"cmd":`, false)
			default:
				send(`{"cmd":"pause"}`, true)
			}
		}
		time.Sleep(time.Duration(rng.IntN(3)) * time.Millisecond)
	}
	// Still serving: a set of one breakpoint on a line far away is answered.
	setBreakpoints(4242)
	select {
	case <-markerSeen:
		r.held("still serving")
	case <-time.After(10 * time.Second):
		r.fail(t, "no answer to the last setBreakpoints")
	}
	send(`{"cmd":"terminate"}`, false)
	stdin.Close()
	<-readDone
	<-notesDone
	mu.Lock()
	for _, v := range violations[:min(len(violations), 10)] {
		r.fail(t, "%s", v)
	}
	if len(violations) > 0 {
		r.fail(t, "%d violations", len(violations))
	} else {
		r.held("one breakpoints event per setBreakpoints, in order")
		r.held("no stop without a command to cause it")
		r.held("every stop's env and watches taken at the stop")
	}
	if notes < r.invalid {
		r.fail(t, "%d invalid lines but only %d notes on stderr", r.invalid, notes)
	} else {
		r.held("every invalid line noted on stderr")
	}
	mu.Unlock()
	p.finish(t, r)
	r.log(t)
}
