package bench

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The step round trip of each stdio front end against its floor, measured side by side:
// each iteration does one round trip with the trivial child (cmd/answer, which answers at
// once over the same kind of pipes) and one with the real polydbg process, so both see the
// same machine load. The figure that matters is the ratio of the two medians.

var answerBin builtBinary

func answerBinary(b *testing.B) string { return answerBin.get(b, ".", "./cmd/answer", "answer") }

// pipeProc is a child process driven line by line over its stdin and stdout.
type pipeProc struct {
	cmd *exec.Cmd
	w   io.WriteCloser
	r   *bufio.Reader
}

func startPipeProc(b *testing.B, env []string, name string, args ...string) *pipeProc {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	return pipeProcOf(b, cmd)
}

// pipeProcOf starts cmd with pipes to its stdin and stdout (its stderr is the bench's),
// killed when the benchmark ends.
func pipeProcOf(b *testing.B, cmd *exec.Cmd) *pipeProc {
	w, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	r, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	p := &pipeProc{cmd: cmd, w: w, r: bufio.NewReaderSize(r, 64<<10)}
	b.Cleanup(func() { w.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return p
}

// roundTrip writes line and reads until a line containing want.
func (p *pipeProc) roundTrip(b *testing.B, line, want string) time.Duration {
	t0 := time.Now()
	if _, err := io.WriteString(p.w, line+"\n"); err != nil {
		b.Fatal(err)
	}
	for {
		l, err := p.r.ReadString('\n')
		if err != nil {
			b.Fatalf("reading: %v", err)
		}
		if strings.Contains(l, want) {
			return time.Since(t0)
		}
	}
}

// stepVsFloor runs b.N step round trips on the front end and as many on the floor,
// interleaved, and reports both medians and their ratio.
func stepVsFloor(b *testing.B, fe *pipeProc, floor *pipeProc, step, want string) {
	for range 300 { // warm up both
		fe.roundTrip(b, step, want)
		floor.roundTrip(b, step, want)
	}
	feLat := make([]time.Duration, 0, b.N)
	flLat := make([]time.Duration, 0, b.N)
	feSw0, flSw0 := contextSwitches(fe.cmd.Process.Pid), contextSwitches(floor.cmd.Process.Pid)
	b.ResetTimer()
	for range b.N {
		feLat = append(feLat, fe.roundTrip(b, step, want))
		flLat = append(flLat, floor.roundTrip(b, step, want))
	}
	b.StopTimer()
	// Context switches per round trip: what the hand-offs between threads cost, counted
	// by the kernel, so the same on a quiet and on a loaded machine.
	b.ReportMetric(float64(contextSwitches(fe.cmd.Process.Pid)-feSw0)/float64(b.N), "switches/step")
	b.ReportMetric(float64(contextSwitches(floor.cmd.Process.Pid)-flSw0)/float64(b.N), "floor-switches/step")
	slices.Sort(feLat)
	slices.Sort(flLat)
	p50 := func(l []time.Duration) float64 { return float64(l[len(l)/2].Nanoseconds()) / 1e3 }
	b.ReportMetric(p50(feLat), "p50-µs")
	b.ReportMetric(p50(flLat), "floor-p50-µs")
	b.ReportMetric(p50(feLat)/p50(flLat), "x-floor")
}

// contextSwitches is the number of times the threads of process pid have been switched
// out, voluntarily (waiting) or not (preempted), so far.
func contextSwitches(pid int) int {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	n := 0
	for _, t := range tasks {
		b, _ := os.ReadFile(t)
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.HasSuffix(k, "ctxt_switches") {
				c, _ := strconv.Atoi(strings.TrimSpace(v))
				n += c
			}
		}
	}
	return n
}

// BenchmarkStepVsFloor: a step over each stdio protocol against the trivial child.
func BenchmarkStepVsFloor(b *testing.B) {
	b.Run("ez", func(b *testing.B) {
		file := writeEZProgram(b)
		const stopped = `{"type":"event","event":"stopped","data":{"reason":"step","location":{"file":"x","line":4,"column":5},"function":"main"}}`
		floor := startPipeProc(b, nil, answerBinary(b), stopped)
		fe := startPipeProc(b, nil, polydbgBinary(b), "ez")
		c := &ezConn{w: fe.w, r: fe.r}
		c.send(b, fmt.Sprintf(`{"type":"command","command":"initialize","params":{"file":%q}}`, file))
		c.until(b, "initialized")
		c.send(b, `{"type":"command","command":"start","params":{}}`)
		c.until(b, "stopped")
		stepVsFloor(b, fe, floor, `{"type":"command","command":"stepInto","params":{}}`, `"event":"stopped"`)
	})
	b.Run("aura", func(b *testing.B) {
		file := writeEZProgram(b)
		const stopped = `AURA_DEBUG_EVENT {"event":"stopped","reason":"step","file":"x","line":4,"col":5,"env":{"i":"1"},"watches":[],"func":"main"}`
		floor := startPipeProc(b, nil, answerBinary(b), stopped)
		fe := startPipeProc(b, []string{"AURA_DEBUG_PROTOCOL=1", "AURA_DEBUG_WAIT=1"}, polydbgBinary(b), "aura", "run", file)
		if _, err := io.WriteString(fe.w, `{"cmd":"enable","startPaused":true}`+"\n"); err != nil {
			b.Fatal(err)
		}
		for {
			l, err := fe.r.ReadString('\n')
			if err != nil {
				b.Fatal(err)
			}
			if strings.Contains(l, `"event":"stopped"`) {
				break
			}
		}
		stepVsFloor(b, fe, floor, `{"cmd":"stepIn"}`, `"event":"stopped"`)
	})
}
