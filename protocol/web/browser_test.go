package web_test

import (
	"bytes"
	"fmt"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/polydbg/polydbg/console"
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/browsertest"
	"github.com/polydbg/polydbg/launch"
	"github.com/polydbg/polydbg/protocol/web"
)

var (
	browser  = browsertest.Browser
	shots    = browsertest.Shots
	run      = browsertest.Run
	waitJS   = browsertest.WaitJS
	fullShot = browsertest.FullShot
)

// varValue is a JS expression for the text of the top-level variable name's value.
func varValue(name string) string {
	return fmt.Sprintf(`(([...document.querySelectorAll("#vars > .var")].find(e => e.querySelector(".name").textContent === %q) || {querySelector: () => ({textContent: ""})}).querySelector(".value").textContent)`, name)
}

func TestBrowser(t *testing.T) {
	ctx := browser(t)
	dir := shots(t)
	run(t, ctx, "start the browser", chromedp.Navigate("about:blank"))
	var dialogs atomic.Int32
	opening := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for _, err := range opening {
			if err != nil {
				return
			}
			dialogs.Add(1)
			chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true})
		}
	}()
	reg := &launch.Registry{}
	prog := writeKite(t, "xss.kite", xssProgram)
	kd := startSession(t, reg, launch.Spec{Kind: launch.Kite, Program: prog, Profile: true}, "xss.kite", true)
	cd := startSession(t, reg, launch.Spec{Kind: launch.Cartridge, Program: "../../examples/cartridges/colorsquare", Console: console.Options{FPS: 30}}, "colorsquare", false)
	fd := startSession(t, reg, launch.Spec{Kind: launch.Kite, Program: writeKite(t, "flood.kite", floodProgram)}, "flood.kite", false)
	bd := startSession(t, reg, launch.Spec{Kind: launch.Cartridge, Program: buttonsCartridge(t), Console: console.Options{FPS: 30}}, "buttons", false)
	callsProg := writeKite(t, "calls.kite", callsProgram)
	sd := startSession(t, reg, launch.Spec{Kind: launch.Kite, Program: callsProg}, "calls.kite", true)
	srv, err := web.Listen("127.0.0.1:0", web.Options{Registry: reg, Public: true, Feeds: &textFeed{text: "hello <b>from</b> a program\n"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	base := "http://" + srv.Addr

	t.Run("kite", func(t *testing.T) {
		run(t, ctx, "open the page", chromedp.Navigate(base+"/s/1"))
		waitJS(t, ctx, "open the page", `document.querySelector('#source .row.current[data-line="1"]') !== null`)
		run(t, ctx, "click line 11", chromedp.Click(chromedp.CSS(`#source .row[data-line="11"] .code`)))
		waitJS(t, ctx, "click line 11", `document.querySelector('#source .row.bp[data-line="11"]') !== null`)
		bps := kd.Breakpoints()
		if len(bps) != 1 || bps[0].Spec.Line != 11 || bps[0].Spec.File != prog || !bps[0].Verified {
			t.Fatalf("the engine's breakpoints after the click: %+v", bps)
		}
		run(t, ctx, "continue", chromedp.Click(chromedp.CSS(`button[data-action="continue"]`)))
		waitJS(t, ctx, "continue", `document.querySelector('#source .row.current[data-line="11"]') !== null`)
		if st := kd.LastStop(); st == nil || st.Location.Line != 11 || st.Reason != engine.ReasonBreakpoint {
			t.Fatalf("the session's stop: %+v", st)
		}
		waitJS(t, ctx, "total in the variables", varValue("total")+` === "4498500"`)
		run(t, ctx, "expand items", chromedp.Click((`//div[@id="vars"]/div[contains(@class,"var")][div/span[@class="name" and text()="items"]]/div/span[@class="toggle"]`)))
		waitJS(t, ctx, "the items of the list", `[...document.querySelectorAll("#vars .children .value")].map(e => e.textContent).join(",") === "10,20,30"`)
		waitJS(t, ctx, "the XSS string shown as text", varValue("xss")+`.includes("<script>alert(1)</script><img src=x onerror=alert(2)>")`)
		run(t, ctx, "gdb: p total", chromedp.SendKeys(chromedp.CSS(`#gdbline`), "p total\n"))
		waitJS(t, ctx, "gdb's answer", `document.querySelector("#gdbout").textContent.includes("(gdb) p total\n$1 = 4498500\n")`)
		run(t, ctx, "gdb: p xss", chromedp.SendKeys(chromedp.CSS(`#gdbline`), "p xss\n"))
		waitJS(t, ctx, "gdb's answer as text", `document.querySelector("#gdbout").textContent.includes("$2 = \"<script>alert(1)</script>")`)
		waitJS(t, ctx, "the flame graph", `[...document.querySelectorAll("#flame .f")].some(e => e.textContent === "work")`)
		names, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#flame .f")].map(e => e.textContent)`))
		if err != nil {
			t.Fatal(err)
		}
		if !contains(names, "main") || !contains(names, "work") {
			t.Fatalf("flame graph frames %v lack main", names)
		}
		waitJS(t, ctx, "the timeline's lanes", `[...document.querySelectorAll("#lanes .lane")].map(e => e.textContent).join(",") === "main,work"`)
		// work's lane (the second row) has bars drawn: a pixel that is not blank across it.
		waitJS(t, ctx, "work's bars on the timeline", `(() => { const c = document.querySelector("#timelinecanvas"); const d = c.getContext("2d").getImageData(0, 16 + 8, c.width, 1).data; for (let i = 3; i < d.length; i += 4) if (d[i] > 0) return true; return false; })()`)
		run(t, ctx, "search work", chromedp.SendKeys(chromedp.CSS(`#flamesearch`), "work"))
		waitJS(t, ctx, "work highlighted", `document.querySelectorAll("#flame .f.match").length > 0 && [...document.querySelectorAll("#flame .f.match")].every(e => e.textContent.includes("work"))`)
		fullShot(t, ctx, filepath.Join(dir, "web-kite.png"))
		run(t, ctx, "zoom into work", chromedp.Click((`//div[@id="flame"]/div[text()="work"]`)))
		waitJS(t, ctx, "work zoomed to the full width", `(() => { const f = document.querySelector("#flame .f"); return f.textContent === "work" && f.style.width === "100%"; })()`)
		run(t, ctx, "continue to the end", chromedp.Click(chromedp.CSS(`button[data-action="continue"]`)))
		waitJS(t, ctx, "the output", `document.querySelector("#output").textContent.includes("total 4498500\n<script>alert(1)</script><img src=x onerror=alert(2)>")`)
		elements, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#vars script, #vars img, #output script, #output img, #source script, #gdbout script, #gdbout img").length`))
		if err != nil {
			t.Fatal(err)
		}
		if elements != 0 || dialogs.Load() != 0 {
			t.Fatalf("debuggee text became markup: %d elements, %d dialogs", elements, dialogs.Load())
		}
	})

	t.Run("step into a call", func(t *testing.T) {
		sd.SetBreakpoints(callsProg, []engine.BreakpointSpec{{Line: 7}})
		run(t, ctx, "open the page", chromedp.Navigate(base+"/s/5"))
		waitJS(t, ctx, "stopped at the entry", `document.querySelector("#state").textContent.startsWith("stopped")`)
		run(t, ctx, "continue", chromedp.Click(chromedp.CSS(`button[data-action="continue"]`)))
		waitJS(t, ctx, "at line 7", `document.querySelector('#source .row.current[data-line="7"]') !== null`)
		waitJS(t, ctx, "the line's calls offered", `[...document.querySelectorAll("#stepinto option")].map(o => o.textContent).join("|") === "Step into…|sq  (column 13)|sq  (column 20)|add  (column 9)" && !document.querySelector("#stepinto").disabled`)
		waitJS(t, ctx, "choose the second sq", `(() => { const s = document.querySelector("#stepinto"); s.value = "1"; s.dispatchEvent(new Event("change")); return true; })()`)
		waitJS(t, ctx, "in sq", `document.querySelector('#source .row.current[data-line="2"]') !== null && document.querySelector("#stack li").textContent.startsWith("sq")`)
		waitJS(t, ctx, "sq's argument is the second call's", varValue("x")+` === "3"`)
		if st := sd.LastStop(); st == nil || st.Location.Line != 2 {
			t.Fatalf("the session's stop: %+v", st)
		}
		waitJS(t, ctx, "no calls left to offer in sq", `document.querySelectorAll("#stepinto option").length === 1 && document.querySelector("#stepinto").disabled`)
	})

	t.Run("console", func(t *testing.T) {
		run(t, ctx, "open the console page", chromedp.Navigate(base+"/s/2"))
		waitJS(t, ctx, "open the console page", `document.querySelector('#screen') !== null`)
		waitJS(t, ctx, "a frame", `document.querySelector("#frameno").textContent.startsWith("frame ")`)
		waitJS(t, ctx, "telemetry charted", `(() => { const d = document.querySelector("#telemetry").dataset; return d.points > 2 && d.last > 0 && d.budget == 200000; })()`)
		run(t, ctx, "pause", chromedp.Click(chromedp.CSS(`button[data-action="pause"]`)))
		waitJS(t, ctx, "stopped", `document.querySelector("#state").textContent.startsWith("stopped")`)
		// Paused between two frames, like any Kite program: the frame about to run, the globals.
		waitJS(t, ctx, "the frame on the stack", `document.querySelector("#stack li") !== null && document.querySelector("#stack li").textContent.startsWith("frame  main.kite:")`)
		waitJS(t, ctx, "the globals", `document.querySelector("#vars .scope").textContent === "Globals" && `+varValue("color")+` !== ""`)
		waitJS(t, ctx, "the current line", `document.querySelector('#source .row.current .code') !== null && document.querySelector('#source .row.current .code').textContent.includes("cls(1)")`)
		var match, total int
		for try := 0; try < 20; try++ {
			time.Sleep(150 * time.Millisecond)
			fb := cd.Console.Screen()
			shot, err := chromedp.Run(ctx, chromedp.Screenshot(chromedp.CSS(`#screen`), chromedp.NodeVisible))
			if err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(shot))
			if err != nil {
				t.Fatal(err)
			}
			scale := img.Bounds().Dx() / console.Width
			match, total = 0, 0
			for y := 0; y < console.Height; y += 2 {
				for x := 0; x < console.Width; x += 2 {
					total++
					want := console.Palette[fb.At(x, y)].(color.RGBA)
					r, g, b, _ := img.At(img.Bounds().Min.X+x*scale+scale/2, img.Bounds().Min.Y+y*scale+scale/2).RGBA()
					if near(r>>8, want.R) && near(g>>8, want.G) && near(b>>8, want.B) {
						match++
					}
				}
			}
			if match == total {
				break
			}
		}
		if match != total {
			t.Fatalf("the canvas matches the framebuffer at %d of %d pixels", match, total)
		}
		fullShot(t, ctx, filepath.Join(dir, "web-console.png"))
	})

	t.Run("index and read-only", func(t *testing.T) {
		run(t, ctx, "open the index", chromedp.Navigate(base+"/"))
		waitJS(t, ctx, "five sessions listed", `[...document.querySelectorAll("#sessions tbody a")].map(a => a.textContent).join(",") === "xss.kite,colorsquare,flood.kite,buttons,calls.kite"`)
		_, port, _ := strings.Cut(srv.Addr, ":")
		run(t, ctx, "open a page from elsewhere", chromedp.Navigate("http://polydbg.test:"+port+"/s/2"))
		waitJS(t, ctx, "read-only", `!document.querySelector("#readonly").hidden && [...document.querySelectorAll("#controls button")].every(b => b.disabled) && document.querySelector("#stepinto").disabled && document.querySelector("#frameno").textContent.startsWith("frame ")`)
		run(t, ctx, "open it with the server's token", chromedp.Navigate("http://polydbg.test:"+port+"/s/2?token="+srv.Token()))
		waitJS(t, ctx, "the controls", `document.querySelector("#readonly").hidden && !document.querySelector('button[data-action="continue"]').disabled`)
	})

	t.Run("feed", func(t *testing.T) {
		run(t, ctx, "open the index", chromedp.Navigate(base+"/"))
		waitJS(t, ctx, "the program listed", `[...document.querySelectorAll("#feeds tbody a")].map(a => a.textContent).join(",") === "greeter"`)
		run(t, ctx, "open its page", chromedp.Click(`//table[@id="feeds"]//a[text()="greeter"]`))
		waitJS(t, ctx, "its output as text", `document.querySelector("#output").textContent === "hello <b>from</b> a program\n" && document.querySelector("#state").textContent === "STOPPED" && !document.querySelector("#output b")`)
	})

	t.Run("keys", func(t *testing.T) {
		run(t, ctx, "open the buttons page", chromedp.Navigate(base+"/s/4"))
		waitJS(t, ctx, "a frame", `document.querySelector("#frameno").textContent.startsWith("frame ")`)
		run(t, ctx, "focus the screen", chromedp.Click(chromedp.CSS(`#screen`)))
		for _, k := range []struct {
			typ    input.DispatchKeyEventType
			colour uint8
		}{{input.DispatchKeyEventTypeKeyDown, 8}, {input.DispatchKeyEventTypeKeyUp, 1}} {
			if _, err := chromedp.Call(ctx, input.DispatchKeyEvent, input.DispatchKeyEventParams{Type: k.typ, Key: "z", Code: "KeyZ", WindowsVirtualKeyCode: 90}); err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(5 * time.Second); bd.Console.Screen().At(64, 64) != k.colour; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatalf("after Z %s the screen is colour %d, want %d", k.typ, bd.Console.Screen().At(64, 64), k.colour)
				}
			}
			want := console.Palette[k.colour].(color.RGBA)
			waitJS(t, ctx, "the canvas in the new colour", fmt.Sprintf(`(() => { const d = document.querySelector("#screen").getContext("2d").getImageData(64, 64, 1, 1).data; return d[0] === %d && d[1] === %d && d[2] === %d; })()`, want.R, want.G, want.B))
		}
	})

	t.Run("flood", func(t *testing.T) {
		run(t, ctx, "open the flood page", chromedp.Navigate(base+"/s/3"))
		waitJS(t, ctx, "open the flood page", `document.querySelector('#output') !== null`)
		waitJS(t, ctx, "output", `document.querySelector("#output").textContent.includes("of a flood")`)
		// The machine may be busy (the flooding program takes a core): the page must answer
		// promptly as a rule and never hang.
		lastLine := func() int { // the highest line number shown (the last line may be cut)
			n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`20 * Math.max(0, ...Array.from(document.querySelector("#output").textContent.matchAll(/line (\d+) of a flood/g), m => Number(m[1])))`))
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
		first, t0 := lastLine(), time.Now()
		var took []time.Duration
		for end := time.Now().Add(2 * time.Second); time.Now().Before(end); {
			start := time.Now()
			lines, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelector("#output").textContent.split("\n").length`))
			if err != nil {
				t.Fatal(err)
			}
			took = append(took, time.Since(start))
			if lines > 1001 {
				t.Fatalf("the output pane holds %d lines", lines)
			}
			time.Sleep(50 * time.Millisecond)
		}
		rate := float64(lastLine()-first) / time.Since(t0).Seconds()
		if rate < 10000 {
			t.Fatalf("the program printed only %.0f lines a second", rate)
		}
		slices.Sort(took)
		median, worst := took[len(took)/2], took[len(took)-1]
		if median > 300*time.Millisecond || worst > 3*time.Second {
			t.Fatalf("the page answered in %v (median), %v (worst) while the program printed", median, worst)
		}
		t.Logf("the page answered in %v (median), %v (worst) while the program printed %.0f lines a second", median, worst, rate)
		fd.Terminate()
	})
}

// textFeed is one program's finished output, as a lantern daemon would give it.
type textFeed struct{ text string }

func (f *textFeed) Feeds() ([]web.FeedInfo, error) {
	return []web.FeedInfo{{ID: "a1", Name: "greeter", Owner: "lantern", State: "STOPPED"}}, nil
}

func (f *textFeed) FeedOutput(id string, from int64) (string, int64, bool, error) {
	if id != "a1" {
		return "", 0, false, fmt.Errorf("no feed %s", id)
	}
	from = min(from, int64(len(f.text)))
	return f.text[from:], int64(len(f.text)), false, nil
}

// buttonsCartridge paints the screen red while button 4 (Z) is down, dark blue otherwise.
func buttonsCartridge(t *testing.T) string {
	dir := t.TempDir()
	manifest := `{"magic": "PMTU", "cartridge_version": 1, "app_id": 2, "title": "Buttons", "app_version": "1.0.0", "app_mode": "Game", "entrypoint": "main.kite"}`
	src := "fn frame() {\n    if btn(4) {\n        cls(8)\n    } else {\n        cls(1)\n    }\n}\n"
	if os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(manifest), 0o644) != nil || os.WriteFile(filepath.Join(dir, "main.kite"), []byte(src), 0o644) != nil {
		t.Fatal("cannot write the cartridge")
	}
	return dir
}

func near(a uint32, b uint8) bool { return a+8 >= uint32(b) && a <= uint32(b)+8 }

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
