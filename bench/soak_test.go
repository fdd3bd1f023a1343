package bench

// The soak test (issue 12): each stdio and TCP front end driven by randomly ordered,
// pipelined valid and invalid commands for a bounded time, with invariants checked after
// each run. Not part of `make test` (bench has its own module); run it with
//
//	cd bench && go test -run TestSoak -soak 30s -v
//
// and copy the summary lines into docs/SECURITY.md.

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/polydbg/polydbg/internal/testbin"
)

var soakFor = flag.Duration("soak", 0, "run each front end's soak test for this long (0: skip)")

// soakMaxRSS is the memory a front end may reach under the soak (it holds one small
// program; anything near this is a leak or unbounded buffering).
const soakMaxRSS = 256 << 20

// soakProc is the polydbg process under test: its memory is sampled while the run lasts
// and its descendants are checked at the end.
type soakProc struct {
	cmd    *exec.Cmd
	maxRSS int64
	stop   chan struct{}
	wg     sync.WaitGroup
	pids   map[int]bool // every descendant seen during the run
	mu     sync.Mutex
}

func startSoakProc(t *testing.T, cmd *exec.Cmd) *soakProc {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &soakProc{cmd: cmd, stop: make(chan struct{}), pids: map[int]bool{}}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-p.stop:
				return
			case <-tick.C:
			}
			rss := vmRSS(cmd.Process.Pid)
			p.mu.Lock()
			p.maxRSS = max(p.maxRSS, rss)
			for _, d := range testbin.Descendants(cmd.Process.Pid) {
				p.pids[d] = true
			}
			p.mu.Unlock()
		}
	}()
	return p
}

// finish waits for the process to exit (it was told to), stops sampling and checks the
// invariants every front end shares: it exits, memory stayed bounded, nothing it started
// is left.
func (p *soakProc) finish(t *testing.T, r *soakReport) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- p.cmd.Wait() }()
	select {
	case <-done:
		r.held("exits within 10 s when told to")
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-done
		r.fail(t, "did not exit within 10 s")
	}
	close(p.stop)
	p.wg.Wait()
	r.maxRSS = p.maxRSS
	if p.maxRSS > soakMaxRSS {
		r.fail(t, "memory reached %d MiB", p.maxRSS>>20)
	} else {
		r.held("memory bounded")
	}
	var pids []int
	for pid := range p.pids {
		pids = append(pids, pid)
	}
	r.processes = len(pids)
	testbin.WaitGone(t, pids...)
	if !t.Failed() {
		r.held("no process left")
	}
}

// vmRSS reads a process's resident memory in bytes.
func vmRSS(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// soakReport is what one front end's run did and which invariants held.
type soakReport struct {
	name                string
	sent, invalid, resp int
	processes           int
	maxRSS              int64
	heldList            []string
}

func (r *soakReport) held(s string) { r.heldList = append(r.heldList, s) }
func (r *soakReport) fail(t *testing.T, format string, args ...any) {
	t.Helper()
	t.Errorf(r.name+": "+format, args...)
}

func (r *soakReport) log(t *testing.T) {
	t.Logf("SOAK %s: %d commands sent (%d invalid), %d answers, max RSS %d MiB, %d processes started and gone; held: %s",
		r.name, r.sent, r.invalid, r.resp, r.maxRSS>>20, r.processes, strings.Join(r.heldList, "; "))
}

func needSoak(t *testing.T) {
	if *soakFor == 0 {
		t.Skip("soak tests run with -soak DURATION")
	}
}

// soakKite is a program that runs until it is terminated, to be stepped, paused and
// continued, calls a function (so step out has somewhere to go) and prints now and then. (It
// ended after 100,000,000 passes, which continues reach in about 25 s of soak: Aura's run
// then ended, and the soak's last command went unanswered.)
const soakKite = `fn twice(n) {
    let d = n * 2
    return d
}
let i = 0
let total = 0
while true {
    i += 1
    total += twice(i)
    if i % 100000 == 0 {
        print(i)
    }
}
`

// soakProgram writes soakKite to a file of its own and returns its path.
func soakProgram(t *testing.T) string {
	t.Helper()
	file := filepath.Join(t.TempDir(), "soak.kite")
	if err := os.WriteFile(file, []byte(soakKite), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// TestSoakEZ drives the EZ front end over its stdio. Commands that have an answer of their
// own (initialize, start, setBreakpoint, clearBreakpoint, getVariables, getStackTrace,
// evaluate, unknown and malformed commands) must be answered exactly once and in order;
// resume commands (stepInto, stepOver, stepOut, continue, pause) are answered by an error or
// by the stop they cause, and no stop may be reported that no command could have caused.
func TestSoakEZ(t *testing.T) {
	needSoak(t)
	file := soakProgram(t)
	cmd := exec.Command(testbin.Polydbg(t), "ez")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	p := startSoakProc(t, cmd)
	r := &soakReport{name: "EZ (stdio)"}

	rng := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano())))
	var mu sync.Mutex
	var queue []string // names of commands sent, in order, awaiting their answer
	resumes := 0       // resume commands sent so far (each may cause one stop)
	starts := 0
	resumeCmd := map[string]bool{"stepInto": true, "stepOver": true, "stepOut": true, "continue": true, "pause": true}
	answerOf := map[string]string{"initialize": "initialized", "start": "started", "setBreakpoint": "breakpointSet",
		"clearBreakpoint": "breakpointCleared", "getVariables": "variables", "getStackTrace": "stackTrace", "evaluate": "evaluateResult"}

	readDone := make(chan struct{})
	var violations []string
	stops := 0
	markerSeen := make(chan struct{}, 1)
	go func() {
		defer close(readDone)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var ev struct {
				Event string `json:"event"`
				Data  struct {
					Command    string `json:"command"`
					Expression string `json:"expression"`
				} `json:"data"`
			}
			if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
				violations = append(violations, "not JSON: "+sc.Text())
				continue
			}
			mu.Lock()
			answered := ""
			switch {
			case ev.Event == "error" && ev.Data.Command != "":
				answered = ev.Data.Command
			case ev.Event == "error" && strings.HasPrefix(sc.Text(), `{"type":"event","event":"error","data":{"message":"malformed`):
				answered = "(malformed)"
			case ev.Event == "stopped":
				stops++
				if stops > starts+resumes {
					violations = append(violations, fmt.Sprintf("stop %d with only %d starts and %d resume commands sent", stops, starts, resumes))
				}
			default:
				for c, a := range answerOf {
					if a == ev.Event {
						answered = c
					}
				}
			}
			if answered != "" {
				r.resp++
				// Resume commands before it may have had no answer of their own.
				for len(queue) > 0 && queue[0] != answered && resumeCmd[queue[0]] {
					queue = queue[1:]
				}
				if len(queue) == 0 || queue[0] != answered {
					violations = append(violations, fmt.Sprintf("answer %q (%s) out of order; expected %v", answered, ev.Event, queue[:min(len(queue), 3)]))
					// Resynchronise on the next command of that name, so that one
					// answer out of place counts once.
					if i := slices.Index(queue, answered); i >= 0 {
						queue = queue[i+1:]
					}
				} else {
					queue = queue[1:]
				}
				if answered == "evaluate" && ev.Data.Expression == "999999" {
					select {
					case markerSeen <- struct{}{}:
					default:
					}
				}
			}
			mu.Unlock()
		}
	}()

	send := func(name, line string) {
		mu.Lock()
		queue = append(queue, name)
		if resumeCmd[name] {
			resumes++
		}
		if name == "start" {
			starts++
		}
		mu.Unlock()
		r.sent++
		io.WriteString(stdin, line+"\n")
	}
	send("initialize", fmt.Sprintf(`{"command":"initialize","params":{"file":%q}}`, file))
	end := time.Now().Add(*soakFor)
	for time.Now().Before(end) {
		burst := 1 + rng.IntN(20)
		for range burst {
			switch k := rng.IntN(16); k {
			case 0:
				send("start", `{"command":"start"}`)
			case 1, 2:
				c := []string{"stepInto", "stepOver", "stepOut", "continue", "pause"}[rng.IntN(5)]
				send(c, `{"command":"`+c+`"}`)
			case 3:
				send("setBreakpoint", fmt.Sprintf(`{"command":"setBreakpoint","params":{"line":%d}}`, 1+rng.IntN(14)))
			case 4:
				send("clearBreakpoint", fmt.Sprintf(`{"command":"clearBreakpoint","params":{"line":%d}}`, 1+rng.IntN(14)))
			case 5:
				send("getVariables", fmt.Sprintf(`{"command":"getVariables","params":{"frameIndex":%d}}`, rng.IntN(3)))
			case 6:
				send("getStackTrace", `{"command":"getStackTrace"}`)
			case 7:
				send("evaluate", `{"command":"evaluate","params":{"expression":"i + total"}}`)
			case 8:
				r.invalid++
				send("evaluate", `{"command":"evaluate","params":{"expression":"i +"}}`)
			case 9:
				r.invalid++
				send("(malformed)", `{"command":`)
			case 10:
				r.invalid++
				send("frob", `{"command":"frob"}`)
			case 11:
				r.invalid++
				send("getVariables", `{"command":"getVariables","params":{"frameIndex":"x"}}`)
			case 12:
				r.invalid++
				send("setBreakpoint", `{"command":"setBreakpoint","params":{"line":-3}}`)
			default:
				send("getStackTrace", `{"command":"getStackTrace"}`)
			}
		}
		time.Sleep(time.Duration(rng.IntN(3)) * time.Millisecond)
	}
	// Still serving: a pure evaluation after everything is answered.
	send("evaluate", `{"command":"evaluate","params":{"expression":"999999"}}`)
	select {
	case <-markerSeen:
		r.held("still serving")
	case <-time.After(10 * time.Second):
		r.fail(t, "no answer to the last command")
	}
	stdin.Close() // the end of stdin ends the session
	<-readDone
	mu.Lock()
	for _, v := range violations[:min(len(violations), 10)] {
		r.fail(t, "%s", v)
	}
	if len(violations) > 0 {
		r.fail(t, "%d answers out of order or unexpected stops", len(violations))
	}
	if len(violations) == 0 {
		r.held("every command answered once, in order")
		r.held("no stop without a command to cause it")
	}
	mu.Unlock()
	p.finish(t, r)
	r.log(t)
}

// TestSoakPrometeu drives the Prometeu DevTools server over TCP with three clients at once.
// Every request line gets exactly one response, in order (ids match; a malformed line's
// response has no id).
func TestSoakPrometeu(t *testing.T) {
	needSoak(t)
	cmd := exec.Command(testbin.Polydbg(t), "prometeu", "run", "../examples/cartridges/colorsquare", "--fps", "0", "--devtools", "127.0.0.1:0")
	stderr, _ := cmd.StderrPipe()
	p := startSoakProc(t, cmd)
	r := &soakReport{name: "Prometeu DevTools (TCP, 3 clients)"}
	sc := bufio.NewScanner(stderr)
	var addr string
	for sc.Scan() {
		if a, ok := strings.CutPrefix(sc.Text(), "prometeu: DevTools listening on "); ok {
			addr = a
			break
		}
	}
	go io.Copy(io.Discard, stderr)
	soakClients(t, r, func(client uint64) (int, int, int, []string) { return soakPrometeuClient(addr, client) })
	cmd.Process.Signal(syscall.SIGTERM)
	p.finish(t, r)
	r.log(t)
}

// soakClients runs three clients at once and adds up what they sent and found.
func soakClients(t *testing.T, r *soakReport, run func(client uint64) (sent, invalid, resp int, bad []string)) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	for client := range 3 {
		wg.Go(func() {
			sent, invalid, resp, bad := run(uint64(client))
			mu.Lock()
			defer mu.Unlock()
			r.sent += sent
			r.invalid += invalid
			r.resp += resp
			for _, b := range bad[:min(len(bad), 10)] {
				r.fail(t, "client %d: %s", client, b)
			}
		})
	}
	wg.Wait()
	if !t.Failed() {
		r.held("every command answered once, in order (3 clients at once)")
		r.held("still serving")
	}
}

func soakPrometeuClient(addr string, seed uint64) (sent, invalid, resp int, bad []string) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, 0, 0, []string{err.Error()}
	}
	defer c.Close()
	rng := rand.New(rand.NewPCG(seed, uint64(time.Now().UnixNano())))
	var mu sync.Mutex
	var want []string // ids as JSON, in order ("null" for a malformed line)
	done := make(chan struct{})
	lastID := ""
	gotLast := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(c)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			var m struct {
				Type string          `json:"type"`
				ID   json.RawMessage `json:"id"`
			}
			if json.Unmarshal(sc.Bytes(), &m) != nil {
				bad = append(bad, "not JSON")
				continue
			}
			if m.Type != "response" {
				continue // handshake and events
			}
			id := string(m.ID)
			if id == "" {
				id = "null"
			}
			mu.Lock()
			resp++
			if len(want) == 0 || want[0] != id {
				bad = append(bad, fmt.Sprintf("response id %s, expected %v", id, want[:min(len(want), 3)]))
			} else {
				want = want[1:]
			}
			if id == lastID {
				close(gotLast)
			}
			mu.Unlock()
		}
	}()
	w := bufio.NewWriter(c)
	send := func(id, line string) {
		mu.Lock()
		want = append(want, id)
		mu.Unlock()
		sent++
		w.WriteString(line + "\n")
	}
	send("0", `{"type":"start","id":0}`)
	end := time.Now().Add(*soakFor)
	n := 1
	for time.Now().Before(end) {
		for range 1 + rng.IntN(20) {
			id := strconv.Itoa(n)
			n++
			switch k := rng.IntN(14); k {
			case 0, 1, 2, 3:
				req := []string{"pause", "resume", "step", "stepFrame"}[k]
				send(id, `{"type":"`+req+`","id":`+id+`}`)
			case 4:
				send(id, `{"type":"getState","id":`+id+`}`)
			case 5:
				send(id, fmt.Sprintf(`{"type":"setBreakpoint","pc":%d,"id":%s}`, rng.IntN(200), id))
			case 6:
				send(id, fmt.Sprintf(`{"type":"clearBreakpoint","pc":%d,"id":%s}`, rng.IntN(200), id))
			case 7:
				send(id, fmt.Sprintf(`{"type":"disassemble","pc":%d,"count":%d,"id":%s}`, rng.IntN(300), rng.IntN(2000), id))
			case 8:
				send(id, fmt.Sprintf(`{"type":"getSource","pc":%d,"id":%s}`, rng.IntN(300), id))
			case 9:
				invalid++
				send(id, `{"type":"fly","id":`+id+`}`)
			case 10:
				invalid++
				send(id, `{"type":"setBreakpoint","pc":"47","id":`+id+`}`)
			case 11:
				invalid++
				send("null", `{"type":`)
			case 12:
				send(id, fmt.Sprintf(`{"type":"setInput","buttons":%d,"id":%s}`, rng.IntN(300), id))
			default:
				send(id, `{"type":"getState","id":`+id+`}`)
			}
		}
		if w.Flush() != nil {
			break
		}
		time.Sleep(time.Duration(rng.IntN(3)) * time.Millisecond)
	}
	mu.Lock()
	lastID = strconv.Itoa(n)
	mu.Unlock()
	send(lastID, `{"type":"getState","id":`+lastID+`}`)
	w.Flush()
	select {
	case <-gotLast:
	case <-time.After(10 * time.Second):
		bad = append(bad, "no answer to the last request")
	}
	c.Close()
	<-done
	mu.Lock()
	defer mu.Unlock()
	return sent, invalid, resp, bad
}

// TestSoakLantern drives the debuglantern daemon over TCP with three clients at once, each
// with a session running /bin/sleep: every command line gets exactly one answer, in order
// (each answer is checked against what its command can answer), started programs end, and
// the daemon still serves.
func TestSoakLantern(t *testing.T) {
	needSoak(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	cmd := exec.Command(testbin.Polydbg(t), "lantern", "serve", "--listen", addr, "--stop-grace", "200ms")
	stderr, _ := cmd.StderrPipe()
	p := startSoakProc(t, cmd)
	r := &soakReport{name: "debuglantern (TCP, 3 clients)"}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if strings.Contains(sc.Text(), "listening on") {
			break
		}
	}
	go io.Copy(io.Discard, stderr)
	sleep, err := os.ReadFile("/bin/sleep")
	if err != nil {
		t.Fatal(err)
	}
	soakClients(t, r, func(client uint64) (int, int, int, []string) { return soakLanternClient(addr, client, sleep) })
	cmd.Process.Signal(syscall.SIGTERM)
	p.finish(t, r)
	r.log(t)
}

func soakLanternClient(addr string, seed uint64, prog []byte) (sent, invalid, resp int, bad []string) {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return 0, 0, 0, []string{err.Error()}
	}
	defer c.Close()
	br := bufio.NewReader(c)
	fmt.Fprintf(c, "UPLOAD %d\n", len(prog))
	c.Write(prog)
	line, err := br.ReadString('\n')
	var s struct{ ID string }
	if err != nil || json.Unmarshal([]byte(line), &s) != nil || s.ID == "" {
		return 1, 0, 0, []string{fmt.Sprintf("upload answered %q %v", line, err)}
	}
	id := s.ID
	fmt.Fprintf(c, "ARGS %s 0.2\n", id)
	br.ReadString('\n')
	sent, resp = 2, 2

	rng := rand.New(rand.NewPCG(seed, uint64(time.Now().UnixNano())))
	// Each command with the test its answer must pass.
	ok := func(codes ...string) func(string) bool {
		return func(a string) bool {
			if strings.Contains(a, `"id":"`+id+`"`) && !strings.Contains(a, "error_code") {
				return true
			}
			for _, code := range codes {
				if strings.Contains(a, `"error_code":"`+code+`"`) {
					return true
				}
			}
			return false
		}
	}
	errCode := func(code string) func(string) bool {
		return func(a string) bool { return strings.Contains(a, `"error_code":"`+code+`"`) }
	}
	type cmdCheck struct {
		line    string
		invalid bool
		check   func(string) bool
	}
	cmds := []cmdCheck{
		{"LIST", false, func(a string) bool { return strings.HasPrefix(a, "[") }},
		{"STATUS " + id, false, ok()},
		{"START " + id, false, ok("already_running")},
		{"STOP " + id, false, ok("not_running")},
		{"KILL " + id, false, ok("not_running")},
		{"OUTPUT " + id + " 0", false, func(a string) bool { return strings.Contains(a, `"output"`) }},
		{"STATUS 00000000", true, errCode("not_found")},
		{"FROB", true, errCode("unknown_command")},
		{"LIST \x01", true, errCode("invalid_command")},
		{"ENV " + id + " 1X=2", true, errCode("invalid_env")},
		{"START " + id + " --fast", true, errCode("invalid_arguments")},
		{"DELETE " + id, false, errCode("session_running")}, // only sent while it runs: see below
	}
	var mu sync.Mutex
	var want []cmdCheck
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			a, err := br.ReadString('\n')
			if err != nil {
				return
			}
			mu.Lock()
			resp++
			if len(want) == 0 {
				bad = append(bad, "an answer to no command: "+a)
			} else if !want[0].check(a) {
				bad = append(bad, fmt.Sprintf("%q answered %q", want[0].line, strings.TrimSpace(a)))
				want = want[1:]
			} else {
				want = want[1:]
			}
			mu.Unlock()
		}
	}()
	w := bufio.NewWriter(c)
	send := func(cc cmdCheck) {
		mu.Lock()
		want = append(want, cc)
		mu.Unlock()
		sent++
		if cc.invalid {
			invalid++
		}
		w.WriteString(cc.line + "\n")
	}
	end := time.Now().Add(*soakFor)
	for time.Now().Before(end) {
		for range 1 + rng.IntN(10) {
			send(cmds[rng.IntN(len(cmds)-1)]) // never DELETE: its answer depends on timing
		}
		if w.Flush() != nil {
			break
		}
		time.Sleep(time.Duration(rng.IntN(5)) * time.Millisecond)
	}
	send(cmds[4]) // KILL, then the session is deleted and LIST answers
	send(cmdCheck{"DELETE " + id, false, func(a string) bool { return strings.Contains(a, `"DELETED"`) }})
	send(cmds[0])
	w.Flush()
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := len(want)
		mu.Unlock()
		if n == 0 || time.Now().After(deadline) {
			if n != 0 {
				bad = append(bad, fmt.Sprintf("%d commands not answered", n))
			}
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	c.Close()
	<-done
	mu.Lock()
	defer mu.Unlock()
	return sent, invalid, resp, bad
}

// The binary the soak tests built goes when the tests are done (TestMain runs reports last).
func init() { reports = append(reports, func(io.Writer) { testbin.Remove() }) }
