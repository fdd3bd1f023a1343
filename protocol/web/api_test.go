package web_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/launch"
	"github.com/polydbg/polydbg/protocol/web"
)

// TestBreakpointVariablesAndProfile drives a Kite session through the API as the page does:
// a breakpoint toggled on, continue, the variables of the stop, a list expanded, the
// profile so far; then the breakpoint toggled off again.
func TestBreakpointVariablesAndProfile(t *testing.T) {
	reg := &launch.Registry{}
	prog := writeKite(t, "x.kite", xssProgram)
	d := startSession(t, reg, launch.Spec{Kind: launch.Kite, Program: prog, Profile: true}, "x.kite", true)
	srv := serve(t, reg)
	base, tok := "http://"+srv.Addr+"/api/s/1", srv.SessionToken("1")
	body, _ := json.Marshal(map[string]any{"file": prog, "line": 11})
	if code, out := do(t, "POST", base+"/breakpoints", "", tok, string(body)); code != http.StatusOK {
		t.Fatalf("breakpoint: %d %s", code, out)
	}
	seq := d.Seq()
	if code, out := do(t, "POST", base+"/control", "", tok, `{"action":"continue"}`); code != http.StatusOK {
		t.Fatalf("continue: %d %s", code, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if h, err := d.WaitStop(ctx, seq); err != nil || h.Stop == nil || h.Stop.Location.Line != 11 {
		t.Fatalf("stop %+v %v", h, err)
	}
	var items int
	for _, sc := range mustScopes(t, d) {
		vs, _ := d.Variables(sc.Ref)
		for _, v := range vs {
			if v.Name == "items" {
				items = v.Ref
			}
		}
	}
	_, out := do(t, "GET", base+"/vars?ref="+itoa(items), "", "", "")
	if !strings.Contains(out, `"value":"20"`) {
		t.Fatalf("items expanded: %s", out)
	}
	_, out = do(t, "GET", base+"/profile", "", "", "")
	var prof struct {
		Total     int64
		Functions []struct{ Name string }
		Timeline  struct {
			Funcs    []string
			Ns       int64
			Segments []struct {
				F, N, L int
				S, D    int64
			}
		}
	}
	json.Unmarshal([]byte(out), &prof)
	if prof.Total <= 0 || len(prof.Functions) == 0 || prof.Functions[0].Name != "work" {
		t.Fatalf("profile at the breakpoint: %.300s", out)
	}
	// The timeline so far: main runs, then work (its 3,000 loop statements in one run);
	// the statement at the breakpoint has not ended yet.
	tl := prof.Timeline
	if strings.Join(tl.Funcs, ",") != "main,work" || len(tl.Segments) != 2 || tl.Segments[0].F != 0 || tl.Segments[1].F != 1 || tl.Segments[1].N < 3000 || tl.Segments[1].L != 2 {
		t.Fatalf("timeline at the breakpoint: %+v", tl)
	}
	var sum int64
	for i, sg := range tl.Segments {
		if sg.S != sum || sg.D < 0 || (i > 0 && sg.F == tl.Segments[i-1].F) {
			t.Fatalf("segment %d %+v after %d ns", i, sg, sum)
		}
		sum += sg.D
	}
	if sum != tl.Ns || tl.Ns <= 0 || tl.Ns > prof.Total {
		t.Fatalf("the timeline covers %d ns of %d (profile %d)", sum, tl.Ns, prof.Total)
	}
	if code, out := do(t, "POST", base+"/breakpoints", "", tok, string(body)); code != http.StatusOK || len(d.Breakpoints()) != 0 {
		t.Fatalf("toggle off: %d %s, %d left", code, out, len(d.Breakpoints()))
	}
	// The page's gdb console: gdb's answers with the session's token, none without it; a
	// run command resumes as the buttons do.
	for _, q := range [][2]string{{"p total", `{"output":"$1 = 4498500\n"}`}, {"p $1 + 1", `{"output":"$2 = 4498501\n"}`},
		{"run", "run: not here"}, {"bt", `#0  main () at`}} { // in order: the history is the session's
		cmd, want := q[0], q[1]
		body, _ := json.Marshal(map[string]string{"command": cmd})
		if code, out := do(t, "POST", base+"/gdb", "", tok, string(body)); code != http.StatusOK || !strings.Contains(out, want) {
			t.Errorf("gdb %q: %d %s, want %s", cmd, code, out, want)
		}
	}
	if code, out := do(t, "POST", base+"/gdb", "", "wrong", `{"command":"p total"}`); code != http.StatusForbidden {
		t.Errorf("gdb without the token: %d %s", code, out)
	}
	seq = d.Seq()
	if code, out := do(t, "POST", base+"/gdb", "", tok, `{"command":"c"}`); code != http.StatusOK || out != "{\"output\":\"\"}\n" {
		t.Fatalf("gdb c: %d %q", code, out)
	}
	if h, err := d.WaitStop(ctx, seq); err != nil || h.State != engine.Exited {
		t.Fatalf("after gdb c: %+v %v", h, err)
	}
}

func mustScopes(t *testing.T, d *launch.Debuggee) []engine.Scope {
	sc, err := d.Scopes(0)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// FuzzRequests sends arbitrary bodies to every control endpoint, with the session's token:
// each answer is a 2xx or a 4xx (the error form), never a crash or a 5xx, and the server
// still answers afterwards.
func FuzzRequests(f *testing.F) {
	for _, s := range []string{`{"action":"continue"}`, `{"action":"pause"}`, `{"file":"x.kite","line":3}`, `{"buttons":255}`, `{"line":-1}`, `[]`, `{`, ``, `{"buttons":999}`, `{"command":"p 1"}`, `{"command":"c"}`, `{"command":"x/4x 0","frame":-3}`} {
		f.Add(s)
	}
	reg := &launch.Registry{}
	d, err := launch.Start(context.Background(), launch.Spec{Kind: launch.Kite, Source: []byte("print(1)\n"), Program: "f.kite"})
	if err != nil {
		f.Fatal(err)
	}
	defer d.Close()
	reg.Add(d, "f", "fuzz")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	seq := d.Seq()
	d.Start(false)
	d.WaitStop(ctx, seq) // runs to its end: controls now answer with errors
	srv := web.New(web.Options{Registry: reg})
	defer srv.Close()
	tok := srv.SessionToken("1")
	f.Fuzz(func(t *testing.T, body string) {
		for _, path := range []string{"control", "breakpoints", "input", "gdb"} {
			req := httptest.NewRequest("POST", "/api/s/1/"+path, strings.NewReader(body))
			req.Host = "127.0.0.1"
			req.Header.Set("X-Polydbg-Token", tok)
			w := httptest.NewRecorder()
			srv.ServeHTTP(w, req)
			if w.Code >= 500 || w.Code == http.StatusForbidden {
				t.Fatalf("%s %q: %d %s", path, body, w.Code, w.Body.String())
			}
		}
		w := httptest.NewRecorder()
		req := httptest.NewRequest("GET", "/api/sessions", nil)
		req.Host = "localhost"
		srv.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			t.Fatalf("the server stopped answering: %d", w.Code)
		}
	})
}

// stepInto enters the call of the line the control names, its nth of the function; one
// without a target is refused as an unknown action, the session left as it was.
func TestStepIntoControl(t *testing.T) {
	reg := &launch.Registry{}
	prog := writeKite(t, "calls.kite", callsProgram)
	d := startSession(t, reg, launch.Spec{Kind: launch.Kite, Program: prog}, "calls.kite", true)
	srv := serve(t, reg)
	base, tok := "http://"+srv.Addr+"/api/s/1", srv.SessionToken("1")
	d.SetBreakpoints(prog, []engine.BreakpointSpec{{Line: 7}})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	seq := d.Seq()
	do(t, "POST", base+"/control", "", tok, `{"action":"continue"}`)
	if h, err := d.WaitStop(ctx, seq); err != nil || h.Stop == nil || h.Stop.Location.Line != 7 {
		t.Fatalf("stop %+v %v", h, err)
	}
	if code, out := do(t, "POST", base+"/control", "", tok, `{"action":"stepInto"}`); code != http.StatusBadRequest || !strings.Contains(out, "unknown action") {
		t.Fatalf("stepInto without a target: %d %s", code, out)
	}
	seq = d.Seq()
	if code, out := do(t, "POST", base+"/control", "", tok, `{"action":"stepInto","target":"sq","nth":1}`); code != http.StatusOK {
		t.Fatalf("stepInto: %d %s", code, out)
	}
	if h, err := d.WaitStop(ctx, seq); err != nil || h.Stop == nil || h.Stop.Location.Line != 2 {
		t.Fatalf("stop %+v %v", h, err)
	}
	if v, err := d.Evaluate(0, "x", engine.EvalMode{Pure: true}); err != nil || v.Value != "3" {
		t.Fatalf("x = %+v %v: not the second call of sq", v, err)
	}
}
