package web_test

import (
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/polydbg/polydbg/internal/firmware"
	"github.com/polydbg/polydbg/internal/realparts"
	"github.com/polydbg/polydbg/launch"
	"github.com/polydbg/polydbg/protocol/web"
)

// TestBrowserFirmware: the page of a firmware session in QEMU charts the Teleplot lines the
// firmware writes on RTT, samples a global variable from the page (a live chart and its
// value), lists the RTOS tasks with the running one marked, and shows RTT's terminal as
// output; paused, it shows the stack as any session.
func TestBrowserFirmware(t *testing.T) {
	realparts.Need(t, "qemu-system-arm", "arm-none-eabi-gcc")
	elf := firmware.BuildRTT(t)
	ctx := browser(t)
	dir := shots(t)
	reg := &launch.Registry{}
	d := startSession(t, reg, launch.Spec{Kind: launch.QEMU, Machine: "lm3s6965evb", ELF: elf, MCU: launch.MCUOptions{PollPeriod: 10 * time.Millisecond}}, "fw.elf", false)
	srv, err := web.Listen("127.0.0.1:0", web.Options{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })

	run(t, ctx, "open the page", chromedp.Navigate("http://"+srv.Addr+"/s/1"))
	waitJS(t, ctx, "RTT's terminal as output", `document.querySelector("#output").textContent.includes("hello from rtt")`)
	waitJS(t, ctx, "the wave plotted", `(() => { const c = document.querySelector('#plots canvas[data-name="wave"]'); return c !== null && c.dataset.points > 3; })()`)
	waitJS(t, ctx, "the tasks listed", `[...document.querySelectorAll("#tasks tbody td.name")].map(e => e.textContent).sort().join(",") === "IDLE,blinky,console,sensor"`)
	waitJS(t, ctx, "the running task marked", `document.querySelectorAll("#tasks tbody tr.current").length === 1 && document.querySelector("#curtask").textContent.startsWith("(running: ") && document.querySelector("#taskstitle").textContent === "RTOS tasks"`)

	run(t, ctx, "sample counter", chromedp.SendKeys(chromedp.CSS(`#samplename`), "counter"), chromedp.Click(chromedp.CSS(`#samplebutton`)))
	waitJS(t, ctx, "counter plotted", `(() => { const c = document.querySelector('#plots canvas[data-name="counter"]'); return c !== null && c.dataset.points > 3; })()`)
	waitJS(t, ctx, "counter's value", `[...document.querySelectorAll("#mcuvars tr")].some(r => r.querySelector(".name").textContent === "counter" && /^-?\d+$/.test(r.querySelector(".value").textContent) && r.querySelector(".type").textContent.endsWith("int32_t"))`)
	// The chart follows the firmware: its last value changes.
	last, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#plots canvas[data-name="counter"]').parentNode.querySelector(".plotlast").textContent`))
	if err != nil {
		t.Fatal(err)
	}
	waitJS(t, ctx, "counter moving", `document.querySelector('#plots canvas[data-name="counter"]').parentNode.querySelector(".plotlast").textContent !== `+jsString(last))

	run(t, ctx, "pause", chromedp.Click(chromedp.CSS(`button[data-action="pause"]`)))
	// The pause may land in main or in a libgcc routine it calls: main is on the stack.
	waitJS(t, ctx, "stopped with a stack", `document.querySelector("#state").textContent.startsWith("stopped") && [...document.querySelectorAll("#stack li")].some(li => li.textContent.startsWith("main  fw.c:"))`)
	fullShot(t, ctx, filepath.Join(dir, "web-firmware.png"))
	if d.MCU.Sample("counter", 0) != nil {
		t.Fatal("counter was not sampled through the page")
	}
}

// jsString is s as a JavaScript string literal.
func jsString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
