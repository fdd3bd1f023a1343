package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/polydbg/polydbg/launch"
	"github.com/polydbg/polydbg/protocol/mcp"
)

// inProcess connects the SDK's client to a server in this process.
func inProcess(t *testing.T, ctx context.Context, opts mcp.Options, copts *sdk.ClientOptions) (*mcp.Server, *sdk.ClientSession) {
	t.Helper()
	srv := mcp.New(opts)
	t.Cleanup(srv.CloseAll)
	st, ct := sdk.NewInMemoryTransports()
	if _, err := srv.SDK().Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, copts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return srv, cs
}

func mcpEntries() int {
	n := 0
	for _, e := range launch.Sessions.List() {
		if e.Owner == "mcp" {
			n++
		}
	}
	return n
}

// Several sessions at once, each registered in launch.Sessions; the client's going away
// ends and unregisters them.
func TestSessionsRegisteredAndClosedWithClient(t *testing.T) {
	ctx := timeout(t, 30*time.Second)
	_, cs := inProcess(t, ctx, mcp.Options{}, nil)
	src := testdata(t, "average.kite")
	a := must(t, ctx, cs, "start", map[string]any{"program": src, "stopOnEntry": true})
	b := must(t, ctx, cs, "start", map[string]any{"program": src, "stopOnEntry": true})
	if a["session"] == b["session"] || a["reason"] != "entry" {
		t.Fatalf("two sessions: %v %v", a["session"], b["session"])
	}
	if n := mcpEntries(); n != 2 {
		t.Fatalf("launch.Sessions has %d mcp entries, want 2", n)
	}
	// Each session goes on its own.
	must(t, ctx, cs, "continue", map[string]any{"session": a["session"]})
	if sc := must(t, ctx, cs, "context", map[string]any{"session": b["session"]}); sc["state"] != "stopped" {
		t.Fatalf("b after a ran: %v", sc)
	}
	_ = cs.Close()
	deadline := time.Now().Add(5 * time.Second)
	for mcpEntries() != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("sessions still registered after the client left: %d", mcpEntries())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestRunUntil(t *testing.T) {
	ctx := timeout(t, 30*time.Second)
	_, cs := inProcess(t, ctx, mcp.Options{}, nil)
	src := testdata(t, "average.kite")
	id := must(t, ctx, cs, "start", map[string]any{"program": src, "stopOnEntry": true})["session"]

	// A condition, stepping into calls, with a watched expression: one call, a trace.
	out := must(t, ctx, cs, "run_until", map[string]any{"session": id, "condition": "sum >= 12", "into": true, "watch": []string{"sum"}})
	if out["reached"] != "condition" || get(out, "context", "location", "line") != float64(line(t, src, "loop")) {
		t.Fatalf("run_until condition: %v", out)
	}
	b, _ := json.Marshal(out["trace"])
	if !strings.Contains(string(b), `"sum":"4"`) || !strings.Contains(string(b), `"sum":"12"`) {
		t.Fatalf("trace does not show sum changing: %s", b)
	}
	// A location, then a step budget that runs out.
	out = must(t, ctx, cs, "run_until", map[string]any{"session": id, "location": "average.kite:" + str(line(t, src, "ret"))})
	if out["reached"] != "location" || get(out, "context", "location", "line") != float64(line(t, src, "ret")) {
		t.Fatalf("run_until location: %v", out)
	}
	out = must(t, ctx, cs, "run_until", map[string]any{"session": id, "location": "nowhere", "maxSteps": 1})
	if out["reached"] != "steps" && out["reached"] != "ended" {
		t.Fatalf("run_until with a budget of one step: %v", out)
	}
}

// Every answer within the budget the client gives; paging for stacks, big variables and
// output.
func TestBudgetAndPaging(t *testing.T) {
	ctx := timeout(t, 30*time.Second)
	_, cs := inProcess(t, ctx, mcp.Options{}, nil)
	src := testdata(t, "deep.kite")
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "start", Arguments: map[string]any{"program": src, "maxBytes": 3000,
		"breakpoints": []any{map[string]any{"line": line(t, src, "bottom"), "condition": "n == 0"}}}})
	if err != nil || res.IsError {
		t.Fatalf("start: %v %v", err, res)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	if len(raw) > 3000 {
		t.Fatalf("answer of %d bytes over a budget of 3000", len(raw))
	}
	sc := decode(t, res).Out
	if get(sc, "stackDepth") != float64(62) || sc["outputOmitted"] == nil || get(sc, "notes") == nil {
		t.Fatalf("budgeted stop: depth %v, outputOmitted %v, notes %v", sc["stackDepth"], sc["outputOmitted"], sc["notes"])
	}
	id := sc["session"]
	st := must(t, ctx, cs, "stack", map[string]any{"session": id, "start": 58, "count": 10})
	if fr := get(st, "frames").([]any); len(fr) != 4 || get(fr[3], "func") != "main" {
		t.Fatalf("stack page: %v", st)
	}
	var ref float64
	for _, l := range get(sc, "locals").([]any) {
		if str(get(l, "name")) == "acc" {
			ref, _ = get(l, "ref").(float64)
		}
	}
	if ref == 0 {
		t.Fatalf("no acc with a ref in %v", sc["locals"])
	}
	vs := must(t, ctx, cs, "variables", map[string]any{"session": id, "ref": ref, "start": 990, "count": 20})
	if vs["total"] != float64(1000) || vs["more"] != nil || len(get(vs, "variables").([]any)) != 10 || !strings.Contains(str(get(vs, "variables", 9, "value")), "item number 999") {
		t.Fatalf("last variables page: %v", vs)
	}
	vs = must(t, ctx, cs, "variables", map[string]any{"session": id, "ref": ref, "start": 500, "count": 2})
	if vs["more"] != true || len(get(vs, "variables").([]any)) != 2 || !strings.Contains(str(get(vs, "variables", 1, "value")), "item number 501") {
		t.Fatalf("a middle variables page: %v", vs)
	}
	op := must(t, ctx, cs, "output", map[string]any{"session": id, "offset": 0, "maxBytes": 100})
	if !strings.HasPrefix(str(op["text"]), "line 0 of the output") || op["next"] != float64(100) || op["total"].(float64) < 20000 {
		t.Fatalf("output page: %v", op)
	}
	// Resources: the output, the program's source; no other file.
	rr, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "polydbg://sessions/" + str(id) + "/output"})
	if err != nil || !strings.Contains(rr.Contents[0].Text, "line 299 of the output") {
		t.Fatalf("output resource: %v", err)
	}
	rr, err = cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "polydbg://sessions/" + str(id) + "/source" + src})
	if err != nil || !strings.Contains(rr.Contents[0].Text, "fn down(n, acc)") {
		t.Fatalf("source resource: %v", err)
	}
	if _, err := cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: "polydbg://sessions/" + str(id) + "/source/etc/passwd"}); err == nil {
		t.Fatal("a file that is not the session's source was served")
	}
}

func TestRedactionAndProgress(t *testing.T) {
	t.Setenv("MY_SERVICE_TOKEN", "s3cr3t-value-from-env")
	ctx := timeout(t, 30*time.Second)
	var progress atomic.Int32
	_, cs := inProcess(t, ctx, mcp.Options{}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *sdk.ProgressNotificationClientRequest) { progress.Add(1) }})
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "start", Meta: sdk.Meta{"progressToken": "p1"},
		Arguments: map[string]any{"program": testdata(t, "average.kite"), "stopOnEntry": true}})
	if err != nil || res.IsError {
		t.Fatalf("start: %v %v", err, res)
	}
	id := decode(t, res).Out["session"]
	v := must(t, ctx, cs, "evaluate", map[string]any{"session": id, "expression": `"key " + "s3cr3t-value-from-env"`})
	if strings.Contains(str(v["value"]), "s3cr3t") || !strings.Contains(str(v["value"]), "$MY_SERVICE_TOKEN") {
		t.Fatalf("an environment secret was not redacted: %v", v)
	}
	deadline := time.Now().Add(2 * time.Second)
	for progress.Load() < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if progress.Load() < 3 {
		t.Fatalf("%d progress notifications while the target started, want 3", progress.Load())
	}
	// Told otherwise, the server sends it as it is.
	_, raw := inProcess(t, ctx, mcp.Options{NoRedact: true}, nil)
	id = must(t, ctx, raw, "start", map[string]any{"program": testdata(t, "average.kite"), "stopOnEntry": true})["session"]
	if v := must(t, ctx, raw, "evaluate", map[string]any{"session": id, "expression": `"s3cr3t-value-from-env"`}); !strings.Contains(str(v["value"]), "s3cr3t") {
		t.Fatalf("--no-redact still redacted: %v", v)
	}
}

func TestProfileOfKiteRun(t *testing.T) {
	ctx := timeout(t, 30*time.Second)
	_, cs := inProcess(t, ctx, mcp.Options{}, nil)
	sc := must(t, ctx, cs, "start", map[string]any{"program": testdata(t, "average.kite"), "profile": true})
	if sc["state"] != "exited" {
		t.Fatalf("a run without breakpoints ends: %v", sc)
	}
	p := must(t, ctx, cs, "profile", map[string]any{"session": sc["session"], "top": 3})
	if n := len(get(p, "topSelf").([]any)); n != 3 || len(get(p, "topStacks").([]any)) == 0 {
		t.Fatalf("profile: %v", p)
	}
}

// HTTP: a bearer token when one is set, no foreign origins, and no listening beyond
// loopback without a token.
func TestHTTPGuards(t *testing.T) {
	srv := mcp.New(mcp.Options{})
	defer srv.CloseAll()
	hs := httptest.NewServer(srv.HTTPHandler("tok"))
	defer hs.Close()
	post := func(auth, origin string) int {
		req, _ := http.NewRequest("POST", hs.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if c := post("", ""); c != http.StatusUnauthorized {
		t.Errorf("no token: %d", c)
	}
	if c := post("Bearer nope", ""); c != http.StatusUnauthorized {
		t.Errorf("wrong token: %d", c)
	}
	if c := post("Bearer tok", "https://evil.example"); c != http.StatusForbidden {
		t.Errorf("foreign origin: %d", c)
	}
	ctx := timeout(t, 10*time.Second)
	c := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: hs.URL, HTTPClient: &http.Client{Transport: bearer{"tok"}}}, nil)
	if err != nil {
		t.Fatalf("with the token: %v", err)
	}
	defer cs.Close()
	if _, err := cs.ListTools(ctx, nil); err != nil {
		t.Fatal(err)
	}

	out, err := exec.Command(polydbgBin(t), "mcp", "--http", "0.0.0.0:0").CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 || !strings.Contains(string(out), "without --token") {
		t.Fatalf("listening beyond loopback without a token: %v %s", err, out)
	}
}

type bearer struct{ tok string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.tok)
	return http.DefaultTransport.RoundTrip(r)
}

// A pause while a continue waits on the same session: the pause answers at once and the
// continue with the same stop.
func TestPauseDuringContinue(t *testing.T) {
	ctx := timeout(t, 30*time.Second)
	_, cs := inProcess(t, ctx, mcp.Options{}, nil)
	id := must(t, ctx, cs, "start", map[string]any{"program": testdata(t, "spin.kite"), "stopOnEntry": true})["session"]
	done := make(chan map[string]any, 1)
	go func() {
		r, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "continue", Arguments: map[string]any{"session": id, "waitMs": 20000}})
		if err != nil || r.IsError {
			done <- nil
			return
		}
		done <- decode(t, r).Out
	}()
	time.Sleep(200 * time.Millisecond)
	t0 := time.Now()
	sc := must(t, ctx, cs, "pause", map[string]any{"session": id})
	if sc["state"] != "stopped" || sc["reason"] != "pause" || time.Since(t0) > 5*time.Second {
		t.Fatalf("pause: %v after %v", sc, time.Since(t0))
	}
	if c := <-done; c == nil || c["reason"] != "pause" {
		t.Fatalf("the waiting continue: %v", c)
	}
}

// A console cartridge: started paused on entry, stepped, its frame loop paused.
func TestCartridge(t *testing.T) {
	ctx := timeout(t, 30*time.Second)
	_, cs := inProcess(t, ctx, mcp.Options{}, nil)
	cart, _ := filepath.Abs("../../examples/cartridges/colorsquare")
	sc := must(t, ctx, cs, "start", map[string]any{"program": cart, "stopOnEntry": true})
	if sc["state"] != "stopped" || sc["reason"] != "entry" || !strings.HasSuffix(str(get(sc, "location", "file")), ".kite") {
		t.Fatalf("cartridge entry: %v", sc)
	}
	if l := must(t, ctx, cs, "sessions", map[string]any{}); get(l, "sessions", 0, "kind") != "cartridge" {
		t.Fatalf("sessions: %v", l)
	}
	sc = must(t, ctx, cs, "next", map[string]any{"session": sc["session"]})
	if sc["state"] != "stopped" || sc["reason"] != "step" {
		t.Fatalf("cartridge step: %v", sc)
	}
	sc = must(t, ctx, cs, "continue", map[string]any{"session": sc["session"], "waitMs": 200})
	if sc["state"] != "running" {
		t.Fatalf("a cartridge runs its frames until paused: %v", sc)
	}
	if sc = must(t, ctx, cs, "pause", map[string]any{"session": sc["session"]}); sc["reason"] != "pause" {
		t.Fatalf("pause: %v", sc)
	}
}

// The output resource is subscribable: a client is told when a session's output grows.
func TestOutputResourceUpdates(t *testing.T) {
	ctx := timeout(t, 30*time.Second)
	updated := make(chan string, 16)
	_, cs := inProcess(t, ctx, mcp.Options{}, &sdk.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, r *sdk.ResourceUpdatedNotificationRequest) {
			select {
			case updated <- r.Params.URI:
			default:
			}
		}})
	sc := must(t, ctx, cs, "start", map[string]any{"program": testdata(t, "average.kite"), "stopOnEntry": true})
	uri := "polydbg://sessions/" + str(sc["session"]) + "/output"
	if err := cs.Subscribe(ctx, &sdk.SubscribeParams{URI: uri}); err != nil {
		t.Fatal(err)
	}
	must(t, ctx, cs, "continue", map[string]any{"session": sc["session"]})
	select {
	case got := <-updated:
		if got != uri {
			t.Fatalf("updated %s, want %s", got, uri)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no resources/updated notification after the program printed")
	}
}

// Two clients of one server: each sees only its own sessions.
func TestSessionsPrivateToClient(t *testing.T) {
	ctx := timeout(t, 30*time.Second)
	srv := mcp.New(mcp.Options{})
	t.Cleanup(srv.CloseAll)
	connect := func() *sdk.ClientSession {
		st, ct := sdk.NewInMemoryTransports()
		if _, err := srv.SDK().Connect(ctx, st, nil); err != nil {
			t.Fatal(err)
		}
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close() })
		return cs
	}
	a, b := connect(), connect()
	id := must(t, ctx, a, "start", map[string]any{"program": testdata(t, "average.kite"), "stopOnEntry": true})["session"]
	mustFail(t, ctx, b, "next", map[string]any{"session": id}, "no session")
	if l := must(t, ctx, b, "sessions", map[string]any{}); len(get(l, "sessions").([]any)) != 0 {
		t.Fatalf("b sees %v", l)
	}
	must(t, ctx, a, "next", map[string]any{"session": id})
}
