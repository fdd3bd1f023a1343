package bench

import (
	"bufio"
	"bytes"
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
	cmd  *exec.Cmd
	w    io.WriteCloser
	r    *bufio.Reader
	seen []byte
}

func startPipeProc(b *testing.B, env []string, name string, args ...string) *pipeProc {
	if cpu := os.Getenv("STEP_CHILD_CPU"); cpu != "" {
		// The children on that CPU only: with the bench under `taskset -c` another one,
		// every round trip wakes a CPU that went idle (docs/PERFORMANCE.md, "Session 5").
		args = append([]string{"-c", cpu, name}, args...)
		name = "taskset"
	}
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

// roundTrip writes msg and reads until want has arrived.
func (p *pipeProc) roundTrip(b *testing.B, msg []byte, want []byte) time.Duration {
	t0 := time.Now()
	if _, err := p.w.Write(msg); err != nil {
		b.Fatal(err)
	}
	p.await(b, want)
	return time.Since(t0)
}

// await reads until want has arrived, and keeps what came after it for the next call. It
// reads the stream as it comes, not line by line: the terminal's prompt ends with no
// newline, DAP's messages are framed.
func (p *pipeProc) await(b *testing.B, want []byte) {
	for {
		if i := bytes.Index(p.seen, want); i >= 0 {
			p.seen = append(p.seen[:0], p.seen[i+len(want):]...)
			return
		}
		if len(p.seen) > 1<<20 {
			b.Fatalf("no %q in %q", want, p.seen[:200])
		}
		chunk, err := p.r.Peek(max(1, p.r.Buffered()))
		if err != nil {
			b.Fatalf("reading: %v", err)
		}
		p.seen = append(p.seen, chunk...)
		_, _ = p.r.Discard(len(chunk))
	}
}

// stepVsFloor runs b.N step round trips on the front end and as many on the floor,
// interleaved, and reports both medians and their ratio.
func stepVsFloor(b *testing.B, fe, floor *pipeProc, step, want string) {
	msg, w := []byte(step), []byte(want)
	procs := []*pipeProc{fe, floor}
	for range 300 { // warm up both
		for _, p := range procs {
			p.roundTrip(b, msg, w)
		}
	}
	lat := make([][]time.Duration, len(procs))
	sw0, cpu0 := make([]int, len(procs)), make([]int64, len(procs))
	for i, p := range procs {
		lat[i] = make([]time.Duration, 0, b.N)
		sw0[i], cpu0[i] = contextSwitches(p.cmd.Process.Pid), procCPU(p.cmd.Process.Pid)
	}
	b.ResetTimer()
	for range b.N {
		for i, p := range procs {
			lat[i] = append(lat[i], p.roundTrip(b, msg, w))
		}
	}
	b.StopTimer()
	for i, prefix := range []string{"", "floor-"} {
		pid := procs[i].cmd.Process.Pid
		// Context switches per round trip: what the hand-offs between threads cost,
		// counted by the kernel, so the same on a quiet and on a loaded machine.
		b.ReportMetric(float64(contextSwitches(pid)-sw0[i])/float64(b.N), prefix+"switches/step")
		// CPU time per round trip, user and kernel, of all the process's threads.
		b.ReportMetric(float64(procCPU(pid)-cpu0[i])/1e3/float64(b.N), prefix+"cpu-µs/step")
		b.ReportMetric(p50(lat[i]), prefix+"p50-µs")
	}
	b.ReportMetric(p50(lat[0])/p50(lat[1]), "x-floor")
}

// p50 is the median of l in microseconds; it sorts l.
func p50(l []time.Duration) float64 {
	slices.Sort(l)
	return float64(l[len(l)/2].Nanoseconds()) / 1e3
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

// procCPU is the CPU time, in nanoseconds, that the threads of process pid have run so far
// (the first field of each thread's schedstat).
func procCPU(pid int) int64 {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var n int64
	for _, t := range tasks {
		b, _ := os.ReadFile(t)
		if f := strings.Fields(string(b)); len(f) > 0 {
			v, _ := strconv.ParseInt(f[0], 10, 64)
			n += v
		}
	}
	return n
}

// stepCase starts one front end stopped in a loop and its floor child, and gives the step
// message and what ends its answer.
type stepCase struct {
	name  string
	start func(b *testing.B) (fe *pipeProc, answer []string, step, want string)
}

// startFloor starts the floor child with the answer's arguments, waiting for its input as
// polydbg did before session 8 when poll is set (answer -poll, the poll floor).
func startFloor(b *testing.B, answer []string, poll bool) *pipeProc {
	if poll {
		answer = append([]string{"-poll"}, answer...)
	}
	return startPipeProc(b, nil, answerBinary(b), answer...)
}

var stepCases = []stepCase{
	{"ez", func(b *testing.B) (*pipeProc, []string, string, string) {
		file := writeEZProgram(b)
		const stopped = `{"type":"event","event":"stopped","data":{"reason":"step","location":{"file":"x","line":4,"column":5},"function":"main"}}` + "\n" +
			`{"type":"event","event":"variableUpdate","data":{"name":"i","value":"1","type":"int","frameIndex":0,"scope":"global"}}`
		fe := startPipeProc(b, nil, polydbgBinary(b), "ez")
		c := &ezConn{w: fe.w, r: fe.r}
		c.send(b, fmt.Sprintf(`{"type":"command","command":"initialize","params":{"file":%q}}`, file))
		c.until(b, "initialized")
		c.send(b, `{"type":"command","command":"start","params":{}}`)
		c.until(b, "stopped")
		return fe, []string{stopped}, `{"type":"command","command":"stepInto","params":{}}` + "\n", `"event":"stopped"`
	}},
	{"aura", func(b *testing.B) (*pipeProc, []string, string, string) {
		file := writeEZProgram(b)
		const stopped = `AURA_DEBUG_EVENT {"event":"stopped","reason":"step","file":"x","line":4,"col":5,"env":{"i":"1","total":"1"},"watches":[],"func":"main"}`
		fe := startPipeProc(b, []string{"AURA_DEBUG_PROTOCOL=1", "AURA_DEBUG_WAIT=1"}, polydbgBinary(b), "aura", "run", file)
		if _, err := io.WriteString(fe.w, `{"cmd":"enable","startPaused":true}`+"\n"); err != nil {
			b.Fatal(err)
		}
		fe.await(b, []byte(`"event":"stopped"`))
		return fe, []string{stopped}, `{"cmd":"stepIn"}` + "\n", `"event":"stopped"`
	}},
	{"dap", func(b *testing.B) (*pipeProc, []string, string, string) {
		file := filepath.Join(b.TempDir(), "loop.kite")
		if err := os.WriteFile(file, []byte(dapKite), 0o644); err != nil {
			b.Fatal(err)
		}
		frame := func(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }
		answer := frame(`{"seq":10,"type":"response","request_seq":9,"success":true,"command":"next"}`) +
			frame(`{"seq":11,"type":"event","event":"stopped","body":{"reason":"step","threadId":1,"allThreadsStopped":true}}`)
		fe := startPipeProc(b, nil, polydbgBinary(b), "dap")
		thread := (&dapConn{w: fe.w, r: fe.r}).session(b, map[string]any{"program": file}, file, 5)
		next := frame(fmt.Sprintf(`{"seq":9,"type":"request","command":"next","arguments":{"threadId":%d}}`, thread))
		return fe, []string{"-n", answer}, next, `"event":"stopped"`
	}},
	{"cli", func(b *testing.B) (*pipeProc, []string, string, string) {
		file := writeEZProgram(b)
		const prompt = "(polydbg) "
		fe := startPipeProc(b, nil, polydbgBinary(b), "debug", file)
		if _, err := io.WriteString(fe.w, "start\n"); err != nil {
			b.Fatal(err)
		}
		fe.await(b, []byte("Stopped at entry"))
		fe.await(b, []byte(prompt))
		return fe, []string{"-n", "5\t    total += i\n" + prompt}, "next\n", prompt
	}},
}

// BenchmarkStepVsFloor: a step over each stdio front end against the trivial child, which
// answers what the front end answers, interleaved round trip by round trip.
//
//	cd bench && go test -run '^$' -bench StepVsFloor -benchtime 3000x -count 4
//
// Run under `taskset -c 0` to keep the client, polydbg and the child on one CPU: the ratio
// is then the work per step, without the wake-ups of an idle CPU (docs/PERFORMANCE.md).
func BenchmarkStepVsFloor(b *testing.B) {
	for _, c := range stepCases {
		b.Run(c.name, func(b *testing.B) {
			fe, answer, step, want := c.start(b)
			stepVsFloor(b, fe, startFloor(b, answer, false), step, want)
		})
	}
}

// BenchmarkStepAlone: the same round trips, but all of the front end's, then all of the
// floor child's, as a client that steps one debugger sees them (the first
// measurement): between two steps each process waits alone, and its CPU may go idle. Then
// as many with the poll floor (answer -poll), which waits in the poller as polydbg did before session 8:
// x-pollfloor is the cost of the debugger's work alone, pollfloor-p50 against floor-p50 the
// cost of that way of waiting (docs/PERFORMANCE.md, "Session 6").
//
//	cd bench && go test -run '^$' -bench StepAlone -benchtime 3000x -count 2
func BenchmarkStepAlone(b *testing.B) {
	for _, c := range stepCases {
		b.Run(c.name, func(b *testing.B) {
			fe, answer, step, want := c.start(b)
			floor, pollFloor := startFloor(b, answer, false), startFloor(b, answer, true)
			msg, w := []byte(step), []byte(want)
			run := func(p *pipeProc) float64 {
				for range 300 {
					p.roundTrip(b, msg, w)
				}
				lat := make([]time.Duration, b.N)
				for i := range lat {
					lat[i] = p.roundTrip(b, msg, w)
				}
				return p50(lat)
			}
			b.ResetTimer()
			feP50, flP50, pollP50 := run(fe), run(floor), run(pollFloor)
			b.StopTimer()
			b.ReportMetric(feP50, "p50-µs")
			b.ReportMetric(flP50, "floor-p50-µs")
			b.ReportMetric(pollP50, "pollfloor-p50-µs")
			b.ReportMetric(feP50/flP50, "x-floor")
			b.ReportMetric(feP50/pollP50, "x-pollfloor")
		})
	}
}
