package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/polydbg/polydbg/protocol/web"
)

func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

type sessionRow struct{ ID, Name, Owner, Kind, State string }

// TestWebCommandServesTheFileGiven: `polydbg web FILE.kite` lists the program, stopped at
// its first statement, and its page's controls work with the token it is given.
func TestWebCommandServesTheFileGiven(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr bytes.Buffer
	ready := make(chan *web.Running, 1)
	done := make(chan int, 1)
	go func() {
		done <- webMain(ctx, []string{"--listen", "127.0.0.1:0", "../../examples/fib.kite"}, &stderr, func(r *web.Running) { ready <- r })
	}()
	var r *web.Running
	select {
	case r = <-ready:
	case code := <-done:
		t.Fatalf("polydbg web ended: %d %s", code, stderr.String())
	}
	var list []sessionRow
	getJSON(t, "http://"+r.Addr+"/api/sessions", &list)
	if len(list) == 0 {
		t.Fatal("no session listed")
	}
	row := list[len(list)-1]
	if row.Name != "fib.kite" || row.Owner != "web" || row.Kind != "kite" || row.State != "stopped" {
		t.Fatalf("session %+v", row)
	}
	var info struct{ Token string }
	getJSON(t, "http://"+r.Addr+"/api/s/"+row.ID+"/info", &info)
	req, _ := http.NewRequest("POST", "http://"+r.Addr+"/api/s/"+row.ID+"/control", strings.NewReader(`{"action":"continue"}`))
	req.Header.Set("X-Polydbg-Token", info.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("continue: %v %v", err, resp)
	}
	for deadline := time.Now().Add(5 * time.Second); row.State != "exited"; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the program did not end: %+v", row)
		}
		getJSON(t, "http://"+r.Addr+"/api/sessions", &list)
		row = list[len(list)-1]
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(stderr.String(), "web view: http://127.0.0.1:") {
		t.Fatalf("stderr %q", stderr.String())
	}
}

// lockedBuffer is a buffer written by one goroutine and read by another.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestPrometeuRunWeb: `prometeu run --web ADDR` lists its cartridge while it runs.
func TestPrometeuRunWeb(t *testing.T) {
	var stdout, stderr lockedBuffer
	done := make(chan int, 1)
	go func() {
		done <- prometeuRun([]string{"../../examples/cartridges/colorsquare", "--frames", "90", "--fps", "60", "--web", "127.0.0.1:0"}, &stdout, &stderr)
	}()
	url := regexp.MustCompile(`web view: (http://\S+)/`)
	var base string
	for deadline := time.Now().Add(5 * time.Second); base == ""; time.Sleep(10 * time.Millisecond) {
		if m := url.FindStringSubmatch(stderr.String()); m != nil {
			base = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("no web view announced: %s", stderr.String())
		}
	}
	var list []sessionRow
	getJSON(t, base+"/api/sessions", &list)
	found := false
	for _, s := range list {
		found = found || s.Owner == "prometeu" && s.Kind == "cartridge" && s.Name == "colorsquare"
	}
	if !found {
		t.Fatalf("sessions %+v", list)
	}
	if code := <-done; code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
}
