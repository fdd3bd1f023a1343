package web_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/launch"
	"github.com/polydbg/polydbg/protocol/web"
)

// xssProgram has a string that would run script if a page rendered it as HTML, a list to
// expand, and a function to profile.
const xssProgram = `fn work(n) {
    let s = 0
    for i in range(0, n) {
        s += i
    }
    return s
}
let xss = "<script>alert(1)</script><img src=x onerror=alert(2)>"
let items = [10, 20, 30]
let total = work(3000)
print("total ${total}")
print(xss)
`

// callsProgram calls three functions on its line 7, two of them the same.
const callsProgram = `fn sq(x) {
    return x * x
}
fn add(a, b) {
    return a + b
}
let r = add(sq(2), sq(3))
print(r)
`

// floodProgram prints as fast as it can, forever: twenty lines a print, the last one
// numbered ("line N of a flood"), so that even a slow (race-detector) build prints tens of
// thousands of lines a second.
const floodProgram = `let block = ""
for j in range(0, 19) {
    block = block + "filler of a program that prints far more than anyone reads\n"
}
let i = 0
while true {
    print("${block}line ${i} of a flood")
    i += 1
}
`

func writeKite(t *testing.T, name, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// startSession launches, registers and starts a debuggee.
func startSession(t *testing.T, reg *launch.Registry, spec launch.Spec, name string, stopOnEntry bool) *launch.Debuggee {
	t.Helper()
	d, err := launch.Start(context.Background(), spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close() })
	reg.Add(d, name, "test")
	if err := d.Start(stopOnEntry); err != nil {
		t.Fatal(err)
	}
	return d
}

func serve(t *testing.T, reg *launch.Registry) *web.Running {
	t.Helper()
	return serveWith(t, web.Options{Registry: reg})
}

func serveWith(t *testing.T, opts web.Options) *web.Running {
	t.Helper()
	r, err := web.Listen("127.0.0.1:0", opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func do(t *testing.T, method, url, host, token, body string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	if host != "" {
		req.Host = host
	}
	if token != "" {
		req.Header.Set("X-Polydbg-Token", token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// TestControlsNeedTheToken: a page of a public server reached under a name that is not
// loopback gets no token and its controls are refused; the server's token in the address
// gives the controls. A loopback server does not answer such a name at all.
func TestControlsNeedTheToken(t *testing.T) {
	reg := &launch.Registry{}
	startSession(t, reg, launch.Spec{Kind: launch.Kite, Program: writeKite(t, "x.kite", xssProgram), Profile: true}, "x.kite", true)
	local := serve(t, reg)
	for _, path := range []string{"/", "/api/sessions", "/api/s/1/events", "/api/s/1/info?token=" + local.Token()} {
		if code, body := do(t, "GET", "http://"+local.Addr+path, "rebound.example.com", "", ""); code != http.StatusForbidden {
			t.Fatalf("a loopback server answered %s under another name: %d %.100s", path, code, body)
		}
	}
	if code, _ := do(t, "GET", "http://"+local.Addr+"/api/sessions", "localhost:1234", "", ""); code != http.StatusOK {
		t.Fatalf("a loopback server refused localhost: %d", code)
	}
	srv := serveWith(t, web.Options{Registry: reg, Public: true})
	base := "http://" + srv.Addr
	var info struct{ Token string }
	_, body := do(t, "GET", base+"/api/s/1/info", "debug.example.com", "", "")
	json.Unmarshal([]byte(body), &info)
	if info.Token != "" {
		t.Fatalf("a page reached as debug.example.com got the token: %s", body)
	}
	if code, body := do(t, "POST", base+"/api/s/1/control", "debug.example.com", "", `{"action":"continue"}`); code != http.StatusForbidden {
		t.Fatalf("control without token: %d %s", code, body)
	}
	if code, _ := do(t, "POST", base+"/api/s/1/control", "", "wrong", `{"action":"continue"}`); code != http.StatusForbidden {
		t.Fatalf("control with a wrong token: %d", code)
	}
	_, body = do(t, "GET", base+"/api/s/1/info?token="+srv.Token(), "debug.example.com", "", "")
	json.Unmarshal([]byte(body), &info)
	if info.Token != srv.SessionToken("1") {
		t.Fatalf("the server's token did not give the session's: %s", body)
	}
	if code, body := do(t, "GET", base+"/api/s/1/source?file=/etc/passwd", "", "", ""); code != http.StatusNotFound {
		t.Fatalf("served a file that is not the session's: %d %.80s", code, body)
	}
	if code, body := do(t, "POST", base+"/api/s/1/control", "", info.Token, `{"action":"continue"}`); code != http.StatusOK {
		t.Fatalf("control with the token: %d %s", code, body)
	}
	resp, err := http.Get(base + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
		t.Fatalf("CSP %q", csp)
	}
}

// TestMemoryBoundedWithTwentyPages opens twenty event streams on a program that prints
// without end, reads some of them slowly and others not at all, and checks the server's
// heap stays bounded while the pages that read get recent output.
func TestMemoryBoundedWithTwentyPages(t *testing.T) {
	reg := &launch.Registry{}
	d := startSession(t, reg, launch.Spec{Kind: launch.Kite, Program: writeKite(t, "flood.kite", floodProgram)}, "flood", false)
	srv := serve(t, reg)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	got := make(chan int, 20)
	for i := 0; i < 20; i++ {
		req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+srv.Addr+"/api/s/1/events", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if i%2 == 1 {
			continue // a page that never reads
		}
		go func() {
			sc := bufio.NewScanner(resp.Body)
			sc.Buffer(make([]byte, 1<<20), 1<<20)
			n := 0
			for sc.Scan() {
				if strings.HasPrefix(sc.Text(), "event: output") {
					n++
				}
				time.Sleep(time.Millisecond)
			}
			got <- n
		}()
	}
	var peak uint64
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
	}
	d.Terminate()
	cancel()
	if peak > 96<<20 {
		t.Fatalf("heap grew to %d MiB with twenty pages open", peak>>20)
	}
	for i := 0; i < 10; i++ {
		if n := <-got; n < 5 {
			t.Fatalf("a reading page got only %d output messages", n)
		}
	}
	t.Logf("peak heap %d MiB", peak>>20)
}

// TestRestartEndsTheStream: when a front end restarts a session (the registry entry points
// at a new debuggee), open pages' streams end so that they reconnect to the new one.
func TestRestartEndsTheStream(t *testing.T) {
	reg := &launch.Registry{}
	d := startSession(t, reg, launch.Spec{Kind: launch.Kite, Program: writeKite(t, "x.kite", xssProgram)}, "x.kite", true)
	srv := serve(t, reg)
	resp, err := http.Get("http://" + srv.Addr + "/api/s/1/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	first := make([]byte, 64)
	if _, err := resp.Body.Read(first); err != nil {
		t.Fatal(err)
	}
	nd, err := d.Restart(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nd.Close() })
	reg.Replace("1", nd)
	ended := make(chan error, 1)
	go func() { _, err := io.Copy(io.Discard, resp.Body); ended <- err }()
	select {
	case <-ended:
	case <-time.After(5 * time.Second):
		t.Fatal("the page's stream did not end after the restart")
	}
}

// TestMirrorHasNoControls: a read-only mirror gives no page a token, not even one opened
// from loopback or with the server's token, and refuses every control, even one signed with
// the session's token; its pages still stream the session.
func TestMirrorHasNoControls(t *testing.T) {
	reg := &launch.Registry{}
	d := startSession(t, reg, launch.Spec{Kind: launch.Kite, Program: writeKite(t, "x.kite", xssProgram)}, "x.kite", true)
	m := serveWith(t, web.Options{Registry: reg, ReadOnly: true})
	base := "http://" + m.Addr + "/api/s/1"
	for _, q := range []string{"", "?token=" + m.Token()} {
		_, body := do(t, "GET", base+"/info"+q, "", "", "")
		if strings.Contains(body, `"token"`) || !strings.Contains(body, `"mirror":true`) {
			t.Fatalf("a mirror's info%s: %s", q, body)
		}
	}
	tok := m.SessionToken("1")
	for _, c := range []struct{ path, body string }{
		{"/control", `{"action":"continue"}`}, {"/breakpoints", `{"file":"x.kite","line":3}`}, {"/input", `{"buttons":1}`}, {"/sample", `{"name":"x","periodMs":10}`},
	} {
		if code, body := do(t, "POST", base+c.path, "", tok, c.body); code != http.StatusForbidden || !strings.Contains(body, "read-only mirror") {
			t.Fatalf("a mirror's %s: %d %s", c.path, code, body)
		}
	}
	if st := d.State().String(); st != "stopped" || len(d.Breakpoints()) != 0 {
		t.Fatalf("the mirror changed the session: %s, %v", st, d.Breakpoints())
	}
	if code, body := do(t, "GET", base+"/source?file="+url.QueryEscape(d.Spec.Program), "", "", ""); code != http.StatusOK || !strings.Contains(body, "fn work") {
		t.Fatalf("the mirror's source: %d %.100s", code, body)
	}
	if u := m.URL(); strings.Contains(u, "token") {
		t.Fatalf("a mirror's address carries a token: %s", u)
	}
}
