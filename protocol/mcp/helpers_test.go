package mcp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/polydbg/polydbg/internal/firmware"
)

// TestMain removes the binary the tests built.
func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		_ = os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// polydbgBin builds the command once per test run, into a temporary folder.
func polydbgBin(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "polydbg-mcp-test")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "polydbg")
		_, file, _, _ := runtime.Caller(0)
		root := filepath.Join(filepath.Dir(file), "..", "..")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/polydbg")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// connectStdio starts `polydbg mcp FLAGS` and connects the SDK's client to it over stdio.
func connectStdio(t *testing.T, ctx context.Context, flags ...string) *sdk.ClientSession {
	t.Helper()
	cmd := exec.Command(polydbgBin(t), append([]string{"mcp"}, flags...)...)
	cmd.Stderr = os.Stderr
	c := sdk.NewClient(&sdk.Implementation{Name: "polydbg-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

var listenLine = regexp.MustCompile(`listening on (http://\S+)`)

// startHTTP starts `polydbg mcp --http 127.0.0.1:0 FLAGS` and returns its endpoint.
func startHTTP(t *testing.T, flags ...string) string {
	t.Helper()
	cmd := exec.Command(polydbgBin(t), append([]string{"mcp", "--http", "127.0.0.1:0"}, flags...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} // gone with the test, even if it panics
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if m := listenLine.FindStringSubmatch(sc.Text()); m != nil {
			go func() {
				for sc.Scan() {
					fmt.Fprintln(os.Stderr, sc.Text())
				}
			}()
			return m[1]
		}
		fmt.Fprintln(os.Stderr, sc.Text())
	}
	t.Fatal("polydbg mcp --http did not say where it listens")
	return ""
}

// connectHTTP connects the SDK's client over streamable HTTP.
func connectHTTP(t *testing.T, ctx context.Context, endpoint string) *sdk.ClientSession {
	t.Helper()
	c := sdk.NewClient(&sdk.Implementation{Name: "polydbg-test", Version: "1"}, nil)
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: endpoint}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// result is a tool's answer: its structured content (decoded), or its error text.
type result struct {
	Out     map[string]any
	IsError bool
	Text    string
}

func call(t *testing.T, ctx context.Context, cs *sdk.ClientSession, name string, args any) result {
	t.Helper()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	return decode(t, res)
}

func decode(t *testing.T, res *sdk.CallToolResult) result {
	t.Helper()
	r := result{IsError: res.IsError}
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			r.Text += tc.Text
		}
	}
	if res.StructuredContent != nil {
		b, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(b, &r.Out)
	}
	return r
}

// must calls a tool that must succeed.
func must(t *testing.T, ctx context.Context, cs *sdk.ClientSession, name string, args any) map[string]any {
	t.Helper()
	r := call(t, ctx, cs, name, args)
	if r.IsError {
		t.Fatalf("%s %v: %s", name, args, r.Text)
	}
	return r.Out
}

// mustFail calls a tool that must answer with an error result containing want.
func mustFail(t *testing.T, ctx context.Context, cs *sdk.ClientSession, name string, args any, want string) {
	t.Helper()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		if !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: error %q does not say %q", name, err, want)
		}
		return
	}
	r := decode(t, res)
	if !r.IsError || !strings.Contains(r.Text, want) {
		t.Fatalf("%s: want an error saying %q, got %+v", name, want, r)
	}
}

func line(t *testing.T, src, marker string) int { return firmware.MarkerLine(t, src, marker) }

func testdata(t *testing.T, name string) string {
	p, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// get walks a decoded JSON value by keys and indexes: get(v, "stack", 0, "func").
func get(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, _ := v.(map[string]any)
			v = m[k]
		case int:
			a, _ := v.([]any)
			if k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func str(v any) string {
	if v == nil {
		return ""
	}
	if s, ok := v.(string); ok {
		return s
	}
	return fmt.Sprint(v)
}

// local finds a local's value in a stop context.
func local(sc map[string]any, name string) (value, change string) {
	ls, _ := get(sc, "locals").([]any)
	for _, l := range ls {
		if str(get(l, "name")) == name {
			return str(get(l, "value")), str(get(l, "change"))
		}
	}
	return "<none>", ""
}

func timeout(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}
