package bench

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/polydbg/polydbg/internal/testbin"
	"github.com/polydbg/polydbg/protocol/dap"
)

// TestSoakDAP drives the DAP front end over its stdio with randomly ordered, pipelined
// requests, valid and invalid, on a Kite program: every request gets exactly one response,
// with its request_seq, in the order sent; no stop is reported that no request could have
// caused; the server still answers at the end, ends on disconnect and leaves nothing.
func TestSoakDAP(t *testing.T) {
	needSoak(t)
	file := soakProgram(t)
	cmd := exec.Command(testbin.Polydbg(t), "dap")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	p := startSoakProc(t, cmd)
	r := &soakReport{name: "DAP (stdio)"}

	var mu sync.Mutex
	var pending []int // request seqs awaiting their response, in the order sent
	resumes, stops := 1, 0
	var violations []string
	marker := -1
	markerSeen := make(chan struct{}, 1)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		br := bufio.NewReaderSize(stdout, 64<<10)
		for {
			body, err := dap.ReadFrame(br, 64<<20)
			if err != nil {
				return
			}
			var m dapMsg
			if err := json.Unmarshal(body, &m); err != nil {
				mu.Lock()
				violations = append(violations, "not JSON: "+string(body))
				mu.Unlock()
				continue
			}
			mu.Lock()
			switch m.Type {
			case "response":
				r.resp++
				if len(pending) == 0 || pending[0] != m.RequestSeq {
					violations = append(violations, fmt.Sprintf("response to %d out of order; expected %v", m.RequestSeq, pending[:min(len(pending), 3)]))
					for i, s := range pending { // resynchronise after it
						if s == m.RequestSeq {
							pending = pending[i+1:]
							break
						}
					}
				} else {
					pending = pending[1:]
				}
				if m.RequestSeq == marker {
					markerSeen <- struct{}{}
				}
			case "event":
				if m.Event == "stopped" {
					stops++
					if stops > resumes {
						violations = append(violations, fmt.Sprintf("stop %d with only %d requests that could cause one", stops, resumes))
					}
				}
			}
			mu.Unlock()
		}
	}()

	seq := 0
	send := func(command string, args any, resume bool) int {
		seq++
		msg, _ := json.Marshal(map[string]any{"seq": seq, "type": "request", "command": command, "arguments": args})
		mu.Lock()
		pending = append(pending, seq)
		if resume {
			resumes++
		}
		mu.Unlock()
		r.sent++
		dap.WriteFrame(stdin, msg)
		return seq
	}
	sendRaw := func(body string) { // invalid: answered with an error for its seq, even cut short
		seq++
		mu.Lock()
		pending = append(pending, seq)
		mu.Unlock()
		r.sent++
		r.invalid++
		dap.WriteFrame(stdin, []byte(fmt.Sprintf(body, seq)))
	}
	send("initialize", map[string]any{"adapterID": "soak", "linesStartAt1": true, "columnsStartAt1": true}, false)
	send("launch", map[string]any{"program": file, "stopOnEntry": true}, false)
	send("configurationDone", nil, false)

	rng := rand.New(rand.NewPCG(3, uint64(time.Now().UnixNano())))
	thread := map[string]any{"threadId": 1}
	end := time.Now().Add(*soakFor)
	for time.Now().Before(end) {
		for range 1 + rng.IntN(20) {
			switch rng.IntN(16) {
			case 0, 1:
				c := []string{"next", "stepIn", "stepOut", "continue"}[rng.IntN(4)]
				send(c, thread, true)
			case 2:
				send("pause", thread, true)
			case 3:
				var bps []any
				for range rng.IntN(3) {
					bps = append(bps, map[string]any{"line": 1 + rng.IntN(14)})
				}
				send("setBreakpoints", map[string]any{"source": map[string]any{"path": file}, "breakpoints": bps}, false)
			case 4:
				send("stackTrace", thread, false)
			case 5:
				send("scopes", map[string]any{"frameId": rng.IntN(4)}, false)
			case 6:
				send("variables", map[string]any{"variablesReference": rng.IntN(6)}, false)
			case 7:
				send("evaluate", map[string]any{"expression": "i + total", "context": "watch"}, false)
			case 8:
				send("threads", nil, false)
			case 9:
				r.invalid++
				send("evaluate", map[string]any{"expression": "i +", "context": "watch"}, false)
			case 10:
				r.invalid++
				send("frob", nil, false)
			case 11:
				sendRaw(`{"seq":%d,"type":"request","command":"next","arguments":{"threadId":"x"}}`)
			case 12:
				r.invalid++
				send("variables", map[string]any{"variablesReference": -7}, false)
			case 13:
				sendRaw(`{"seq":%d,"type":"request","command":"stackTrace","arguments":`)
			default:
				send("stackTrace", thread, false)
			}
		}
		time.Sleep(time.Duration(rng.IntN(3)) * time.Millisecond)
	}
	marker = send("evaluate", map[string]any{"expression": "999999", "context": "watch"}, false)
	select {
	case <-markerSeen:
		r.held("still serving")
	case <-time.After(10 * time.Second):
		r.fail(t, "no answer to the last request")
	}
	send("disconnect", map[string]any{"terminateDebuggee": true}, false)
	stdin.Close()
	<-readDone
	mu.Lock()
	for _, v := range violations[:min(len(violations), 10)] {
		r.fail(t, "%s", v)
	}
	if len(violations) > 0 {
		r.fail(t, "%d violations", len(violations))
	} else {
		r.held("every request answered once, in order")
		r.held("no stop without a request to cause it")
	}
	mu.Unlock()
	p.finish(t, r)
	r.log(t)
}
