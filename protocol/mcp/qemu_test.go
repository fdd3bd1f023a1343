package mcp_test

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/internal/firmware"
	"github.com/polydbg/polydbg/internal/realparts"
)

// The bug hunt on firmware in QEMU with its SVD, over stdio: a conditional breakpoint in
// a recursion, finish with the returned value, memory, a continue whose bounded wait runs
// out, pause; closing the client leaves no QEMU behind.
func TestAgentFirmwareQEMU(t *testing.T) {
	realparts.Need(t, "qemu-system-arm", "arm-none-eabi-gcc")
	elf := firmware.Build(t)
	src := firmware.Source()
	_, file, _, _ := runtime.Caller(0)
	svd := filepath.Join(filepath.Dir(file), "..", "..", "backend", "mcu", "svd", "testdata", "lm3s6965.svd")
	ctx := timeout(t, 60*time.Second)
	cs := connectStdio(t, ctx, "--allow-exec", "--allow-write")

	sc := must(t, ctx, cs, "start", map[string]any{"kind": "qemu", "machine": "lm3s6965evb", "elf": elf, "svd": svd,
		"breakpoints": []any{map[string]any{"file": src, "line": firmware.Line(t, "fact_base"), "condition": "n == 1"}}})
	id := sc["session"]
	if sc["reason"] != "breakpoint" || get(sc, "location", "line") != float64(firmware.Line(t, "fact_base")) || get(sc, "stack", 0, "func") != "fact" {
		t.Fatalf("first stop: %v", sc)
	}
	if v, _ := local(sc, "n"); v != "1" {
		t.Fatalf("n = %s; locals %v", v, sc["locals"])
	}
	sc = must(t, ctx, cs, "finish", map[string]any{"session": id})
	if get(sc, "location", "line") != float64(firmware.Line(t, "fact_rec")) || get(sc, "returnValue", "value") != "1" {
		t.Fatalf("finish: %v", sc)
	}
	regs := must(t, ctx, cs, "registers", map[string]any{"session": id})
	var sp string
	for _, r := range get(regs, "registers").([]any) {
		if n := str(get(r, "name")); n == "sp" || n == "r13" {
			sp = str(get(r, "value"))
		}
	}
	m := must(t, ctx, cs, "read_memory", map[string]any{"session": id, "address": sp, "length": 16})
	if len(str(m["hex"])) != 32 {
		t.Fatalf("read_memory at sp %s: %v", sp, m)
	}
	if m2 := must(t, ctx, cs, "read_memory", map[string]any{"session": id, "address": "$sp", "length": 16}); m2["hex"] != m["hex"] || m2["address"] != m["address"] {
		t.Fatalf("read_memory at $sp: %v, at %s: %v", m2, sp, m)
	}
	dis := must(t, ctx, cs, "disassemble", map[string]any{"session": id, "count": 3})
	if ins := get(dis, "instructions").([]any); len(ins) != 3 || get(ins[0], "current") != true || str(get(ins[0], "text")) == "" {
		t.Fatalf("disassemble at the stop: %v", dis)
	}
	// A register set by name, with --allow-write.
	if v := must(t, ctx, cs, "set_variable", map[string]any{"session": id, "name": "$r7", "value": "0x1234"}); v["value"] != "0x00001234" {
		t.Fatalf("set $r7: %v", v)
	}
	// Peripherals by the SVD file: the list, then one register decoded.
	if p := must(t, ctx, cs, "peripherals", map[string]any{"session": id}); !strings.Contains(fmt.Sprint(p["peripherals"]), "UART0") {
		t.Fatalf("peripherals: %v", p)
	}
	fr := must(t, ctx, cs, "peripherals", map[string]any{"session": id, "peripheral": "UART0", "register": "FR"})
	if get(fr, "registers", 0, "name") != "FR" || get(fr, "registers", 0, "address") != "0x4000c018" || !strings.Contains(fmt.Sprint(fr), "TXFE") {
		t.Fatalf("UART0.FR: %v", fr)
	}
	must(t, ctx, cs, "clear_breakpoints", map[string]any{"session": id})
	sc = must(t, ctx, cs, "continue", map[string]any{"session": id, "waitMs": 300})
	if sc["state"] != "running" {
		t.Fatalf("continue into the busy loop: %v", sc)
	}
	sc = must(t, ctx, cs, "pause", map[string]any{"session": id})
	if sc["state"] != "stopped" || sc["reason"] != "pause" {
		t.Fatalf("pause: %v", sc)
	}
	_ = cs.Close()
	waitNoProcess(t, elf)
}

// RTT channels and RTOS tasks on the RTT test firmware (SEGGER RTT, FreeRTOS-shaped
// task lists), over stdio.
func TestFirmwareRTTAndTasks(t *testing.T) {
	realparts.Need(t, "qemu-system-arm", "arm-none-eabi-gcc")
	realparts.NeedFile(t, "/usr/lib/arm-none-eabi/newlib")
	elf := firmware.BuildRTT(t)
	ctx := timeout(t, 60*time.Second)
	cs := connectStdio(t, ctx, "--allow-exec")
	sc := must(t, ctx, cs, "start", map[string]any{"kind": "qemu", "machine": "lm3s6965evb", "elf": elf, "waitMs": 500})
	id := sc["session"]
	if sc["state"] == "running" {
		must(t, ctx, cs, "pause", map[string]any{"session": id})
	}
	// The device service drains RTT while the core runs and after each stop: what it read
	// since the last call comes with each.
	var terminal string
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(terminal, "hello from rtt") && time.Now().Before(deadline); {
		r := must(t, ctx, cs, "rtt", map[string]any{"session": id})
		for _, ch := range get(r, "channels").([]any) {
			if get(ch, "index") == float64(0) {
				terminal += str(get(ch, "text"))
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	if !strings.Contains(terminal, "hello from rtt") {
		t.Fatalf("rtt channel 0: %q", terminal)
	}
	ts := must(t, ctx, cs, "tasks", map[string]any{"session": id})
	names := fmt.Sprint(ts["tasks"])
	for _, want := range []string{"IDLE", "sensor", "blinky", "console"} {
		if !strings.Contains(names, want) {
			t.Fatalf("tasks: no %s in %v", want, ts)
		}
	}
	_ = cs.Close()
	waitNoProcess(t, elf)
}
