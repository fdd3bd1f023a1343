package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/polydbg/polydbg/internal/browsertest"
	"github.com/polydbg/polydbg/internal/testbin"
)

// mirroredProgram is stepped by the agent: the page must follow it line by line.
const mirroredProgram = `let a = 1
let b = a + 1
let c = a + b
print("c is ${c}")
let d = c * 2
`

// TestMCPWebMirror: `polydbg mcp --web ADDR` serves the agent's sessions as a read-only
// mirror. An MCP client (the SDK's, over stdio against the built binary) starts a Kite
// program and steps it; the page in chromium follows each step's current line and
// variables, has no controls, and says it is a mirror.
func TestMCPWebMirror(t *testing.T) {
	ctx := browsertest.Browser(t)
	dir := browsertest.Shots(t)
	prog := filepath.Join(t.TempDir(), "mirrored.kite")
	if err := os.WriteFile(prog, []byte(mirroredProgram), 0o644); err != nil {
		t.Fatal(err)
	}
	tool, base := mcpWithWeb(t)
	line := func(sc map[string]any) int {
		loc, _ := sc["location"].(map[string]any)
		n, _ := loc["line"].(float64)
		return int(n)
	}
	sc := tool("start", map[string]any{"program": prog, "stopOnEntry": true})
	if sc["state"] != "stopped" || line(sc) != 1 {
		t.Fatalf("start: %v", sc)
	}
	var list []sessionRow
	getJSON(t, base+"/api/sessions", &list)
	if len(list) != 1 || list[0].Owner != "mcp" || list[0].Name != "mirrored.kite" {
		t.Fatalf("sessions in the mirror: %+v", list)
	}
	current := func(n int) string {
		return fmt.Sprintf(`document.querySelector('#source .row.current[data-line="%d"]') !== null && document.querySelectorAll('#source .row.current').length === 1`, n)
	}
	browsertest.Run(t, ctx, "open the mirror", chromedp.Navigate(base+"/s/"+list[0].ID))
	browsertest.WaitJS(t, ctx, "the entry line", current(1))
	browsertest.WaitJS(t, ctx, "said to be a mirror, without controls", `!document.querySelector("#readonly").hidden && document.querySelector("#readonly").textContent.startsWith("read-only mirror") && getComputedStyle(document.querySelector("#controls")).display === "none"`)
	for want := 2; want <= 5; want++ {
		sc = tool("next", map[string]any{"session": sc["session"]})
		if line(sc) != want {
			t.Fatalf("next: %v", sc)
		}
		browsertest.WaitJS(t, ctx, fmt.Sprintf("line %d after the agent's step", want), current(want))
	}
	browsertest.WaitJS(t, ctx, "the variables and output of the stop", `[...document.querySelectorAll("#vars .var .line")].some(l => l.textContent.startsWith("c = 3")) && document.querySelector("#output").textContent === "c is 3\n"`)
	browsertest.FullShot(t, ctx, filepath.Join(dir, "web-mcp-mirror.png"))
	// A click on a line is refused: the agent's breakpoints stay as they were.
	browsertest.Run(t, ctx, "click line 1", chromedp.Click(chromedp.CSS(`#source .row[data-line="1"] .code`)))
	time.Sleep(300 * time.Millisecond)
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#source .row.bp").length`)); err != nil || n != 0 {
		t.Fatalf("the mirror set a breakpoint: %d %v", n, err)
	}
	// The agent's server closes an ended session at once: the page still shows how it ended.
	if sc = tool("continue", map[string]any{"session": sc["session"]}); sc["state"] != "exited" {
		t.Fatalf("continue: %v", sc)
	}
	browsertest.WaitJS(t, ctx, "the end", `document.querySelector("#state").textContent === "exited"`)
}

// mcpWithWeb starts `polydbg mcp --web 127.0.0.1:0 FLAGS` with the SDK's client over stdio;
// it returns a caller of tools (which must succeed) and the web view's address.
func mcpWithWeb(t *testing.T, flags ...string) (func(string, map[string]any) map[string]any, string) {
	t.Helper()
	var stderr lockedBuffer
	cmd := exec.Command(testbin.Polydbg(t), append([]string{"mcp", "--web", "127.0.0.1:0"}, flags...)...)
	cmd.Stderr = &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	client := sdk.NewClient(&sdk.Implementation{Name: "polydbg-mirror-test", Version: "1"}, nil)
	cs, err := client.Connect(cctx, &sdk.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	base := ""
	url := regexp.MustCompile(`web view: (http://\S+)/`)
	for deadline := time.Now().Add(10 * time.Second); base == ""; time.Sleep(20 * time.Millisecond) {
		if m := url.FindStringSubmatch(stderr.String()); m != nil {
			base = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("no web view announced: %s", stderr.String())
		}
	}
	tool := func(name string, args map[string]any) map[string]any {
		t.Helper()
		res, err := cs.CallTool(cctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", name, err, res)
		}
		var out map[string]any
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &out)
		return out
	}
	return tool, base
}

// TestMCPWebControl: with --web-control the pages of the agent's sessions have the controls
// (a page from loopback gets the session's token) and are not a mirror.
func TestMCPWebControl(t *testing.T) {
	prog := filepath.Join(t.TempDir(), "controlled.kite")
	if err := os.WriteFile(prog, []byte(mirroredProgram), 0o644); err != nil {
		t.Fatal(err)
	}
	tool, base := mcpWithWeb(t, "--web-control")
	tool("start", map[string]any{"program": prog, "stopOnEntry": true})
	var list []sessionRow
	getJSON(t, base+"/api/sessions", &list)
	if len(list) != 1 {
		t.Fatalf("sessions %+v", list)
	}
	var info struct {
		Token  string
		Mirror bool
	}
	getJSON(t, base+"/api/s/"+list[0].ID+"/info", &info)
	if info.Token == "" || info.Mirror {
		t.Fatalf("info with --web-control: %+v", info)
	}
}
