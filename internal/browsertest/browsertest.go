// Package browsertest starts Debian's headless chromium for the tests of the web view
// (protocol/web, and the commands that serve it in cmd/polydbg), driven by chromedp, and
// waits on conditions in the page. In CI a missing chromium fails the test (scripts/deps.sh
// installs it); elsewhere the test is skipped.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Browser starts chromium, headless, with a fresh profile; it ends with the test. The
// host name polydbg.test resolves to 127.0.0.1: a page opened through it is what a page
// reached from elsewhere gets.
func Browser(t *testing.T) context.Context {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium is not installed (scripts/deps.sh installs it)")
		}
		t.Skip("chromium is not installed: run scripts/deps.sh as root")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx,
		chromedp.ExecPath(path),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("host-resolver-rules", "MAP polydbg.test 127.0.0.1"),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 1100),
	)
	t.Cleanup(cancelAlloc)
	bctx, cancelBrowser := chromedp.NewContext(alloc)
	t.Cleanup(cancelBrowser)
	return bctx
}

// Run runs actions in the page, failing the test with the page's HTML if one fails.
func Run(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, actions...); err != nil {
		html, _ := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("body")))
		t.Fatalf("%s: %v\npage: %.3000s", what, err, html)
	}
}

// WaitJS polls a JavaScript condition until it is true (15 s at most).
func WaitJS(t *testing.T, ctx context.Context, what, expr string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		if ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](expr)); err == nil && ok {
			return
		}
		if time.Now().After(deadline) {
			html, _ := chromedp.Run(ctx, chromedp.OuterHTML(chromedp.CSS("main#session")))
			t.Fatalf("timed out waiting for %s (%s)\npage: %.3000s", what, expr, html)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Shots is where a test writes its screenshots: $POLYDBG_SHOTS (docs/img for the docs),
// or a temporary folder.
func Shots(t *testing.T) string {
	dir := os.Getenv("POLYDBG_SHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots in %s", dir)
	return dir
}

// FullShot saves a screenshot of the whole page as PNG.
func FullShot(t *testing.T, ctx context.Context, path string) {
	t.Helper()
	b, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err == nil {
		err = os.WriteFile(path, b, 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
}
