package cli_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/backend/gdbremote"
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/gdbcmd"
	"github.com/polydbg/polydbg/internal/firmware"
	"github.com/polydbg/polydbg/internal/realparts"
	"github.com/polydbg/polydbg/protocol/cli"
)

// remoteScript runs the terminal debugger with the commands piped in, on sessions opened
// by open (what `polydbg debug --qemu` / `--gdb` do), and returns its output.
func remoteScript(t *testing.T, commands string, open func(ctx context.Context) (*gdbremote.Target, error)) string {
	t.Helper()
	var out strings.Builder
	done := make(chan int, 1)
	go func() {
		done <- cli.Run(cli.Config{In: strings.NewReader(commands), Echo: true, Debug: gdbcmd.Config{Out: &out,
			NewSession: func() (*engine.Session, error) {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				tg, err := open(ctx)
				if err != nil {
					return nil, err
				}
				return engine.NewSession(tg), nil
			},
		}})
	}()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, out.String())
		}
	case <-time.After(60 * time.Second):
		t.Fatal("the debugger did not finish")
	}
	return out.String()
}

// `polydbg debug --qemu lm3s6965evb fw.elf`: the same commands as for Kite, on firmware in
// QEMU: a conditional function breakpoint, a backtrace through the SysTick handler into the
// main loop, globals, an instruction step, a conditional instruction breakpoint, the end.
func TestDebugQEMU(t *testing.T) {
	realparts.Need(t, "qemu-system-arm")
	elf := firmware.Build(t)
	sym, err := elfsym.Open(elf)
	if err != nil {
		t.Fatal(err)
	}
	defer sym.Close()
	busyAdd, _, err := sym.LineToPCs("fw.c", firmware.Line(t, "busy_add"))
	if err != nil {
		t.Fatal(err)
	}
	out := remoteScript(t, `break tick_work if ticks == 2
run
bt
print ticks
print sample
print $pc
stepi
print $pc
delete
break *`+fmt.Sprintf("%#x", busyAdd[0])+` if loops > 5000
continue
bt
print loops > 5000
kill
`, func(ctx context.Context) (*gdbremote.Target, error) {
		return gdbremote.StartQEMUTarget(ctx, "lm3s6965evb", elf, gdbremote.Config{})
	})
	out = strings.ReplaceAll(out, firmware.Dir()+"/", "")
	tick := firmware.Line(t, "tick_work")
	expect(t, out,
		"(polydbg) break tick_work if ticks == 2", "Breakpoint 1 at 0x", fmt.Sprintf(": file fw.c, line %d.\n", tick),
		"(polydbg) run", "fw start", // semihosting output
		fmt.Sprintf("Breakpoint 1, tick_work () at fw.c:%d", tick),
		"(polydbg) bt", "#0  tick_work () at fw.c:", "\n#1  0x", " in SysTick_Handler () at fw.c:"+fmt.Sprint(firmware.Line(t, "systick_call")),
		" in main () at fw.c:", "(polydbg) print ticks", "$1 = 2\n",
		"(polydbg) print sample", "$2 = {a = 7, b = -3, c = ",
		"(polydbg) print $pc", "(polydbg) stepi", "(polydbg) print $pc",
		"(polydbg) break *0x", "Breakpoint 2 at ",
		"(polydbg) continue", "Breakpoint 2, busy (", fmt.Sprintf(") at fw.c:%d", firmware.Line(t, "busy_add")),
		"(polydbg) bt", "#0  busy (", " in main () at fw.c:"+fmt.Sprint(firmware.Line(t, "main_busy")),
		"(polydbg) print loops > 5000", "$5 = 1",
		"(polydbg) kill", "Kill the program being debugged? (y or n) [answered Y; input not from terminal]\n[Inferior 1 (process 1) killed]",
	)
	// a Cortex-M's pc is 32 bits: frames and a stepi inside a line show 8 hex digits, as gdb
	if !regexp.MustCompile(`\n#1  0x[0-9a-f]{8} in SysTick_Handler \(\)`).MatchString(out) ||
		!regexp.MustCompile(`\(polydbg\) stepi\n0x[0-9a-f]{8}\t\d+\t`).MatchString(out) {
		t.Errorf("addresses not 8 digits wide:\n%s", out)
	}
	if pcs := stepiPCs(out); len(pcs) != 2 || pcs[0] == pcs[1] {
		t.Errorf("pc before and after stepi: %v\n%s", pcs, out)
	}
	if strings.Contains(out, "Terminated via GDBstub") {
		t.Errorf("QEMU's own message shown as program output:\n%s", out)
	}
}

// `polydbg debug --gdb HOST:PORT --elf FILE`: connect to a gdbserver started by hand.
func TestDebugGdbConnect(t *testing.T) {
	realparts.Need(t, "gcc", "gdbserver")
	dir := t.TempDir()
	src, exe := filepath.Join(dir, "loop.c"), filepath.Join(dir, "loop")
	if err := os.WriteFile(src, []byte(cProg), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("gcc", "-g", "-O0", "-o", exe, src).CombinedOutput(); err != nil {
		t.Fatalf("gcc: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	stub, err := gdbremote.StartGdbserver(ctx, exe, nil, gdbremote.StubOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer stub.Stop()
	out := remoteScript(t, `break square if x == 3
run
bt
print x
print counter
finish
print sum
print $pc
stepi
print $pc
delete
continue
`, func(ctx context.Context) (*gdbremote.Target, error) {
		return gdbremote.Connect(ctx, stub.Addr, exe, gdbremote.Config{})
	})
	expect(t, strings.ReplaceAll(out, dir+"/", ""),
		"Breakpoint 1 at 0x", ": file loop.c, line 3.\n",
		"Breakpoint 1, square (x=3) at loop.c:3",
		"#0  square (x=3) at loop.c:3\n", "#1  0x", " in main () at loop.c:8\n",
		"(polydbg) print x", "$1 = 3",
		"(polydbg) print counter", "$2 = 4",
		"(polydbg) finish", "8\t        sum += square(i);", "Value returned is $3 = 9",
		"(polydbg) print sum", "$4 = 5",
		"(polydbg) stepi", "(polydbg) continue", "[Inferior 1 (process ", ") exited normally]",
	)
	if pcs := stepiPCs(out); len(pcs) != 2 || pcs[0] == pcs[1] {
		t.Errorf("pc before and after stepi: %v\n%s", pcs, out)
	}
	// the program's output goes to the stub's terminal, as with gdb
	select {
	case <-stub.Exited():
	case <-time.After(10 * time.Second):
		t.Fatal("gdbserver did not end with the program")
	}
	if !strings.Contains(stub.Output(), "sum 30") {
		t.Errorf("gdbserver output %q", stub.Output())
	}
}

// stepiPCs returns the addresses printed by "print $pc" (before and after a stepi), which
// prints as gdb's: (void (*)()) 0x138 <tick_work+4>.
func stepiPCs(out string) []string {
	var pcs []string
	for _, m := range regexp.MustCompile(`\(polydbg\) print \$pc\n\$\d+ = \(void \(\*\)\(\)\) (0x[0-9a-f]+)`).FindAllStringSubmatch(out, -1) {
		pcs = append(pcs, m[1])
	}
	return pcs
}

// return on a Cortex-M: out of three frames of a recursion at once, the caller's registers
// (r4 - r11, sp, pc) recovered from the firmware's frame information, and the value left
// in r0, where the caller that multiplies it takes it.
func TestReturnQEMU(t *testing.T) {
	realparts.Need(t, "qemu-system-arm")
	elf := firmware.Build(t)
	out := remoteScript(t, fmt.Sprintf(`break fw.c:%d
run
bt
up 2
return 100
bt
tbreak fw.c:%d
continue
print fact_result
info inferiors
info proc
kill
`, firmware.Line(t, "fact_base"), firmware.Line(t, "main_fact")+1), func(ctx context.Context) (*gdbremote.Target, error) {
		return gdbremote.StartQEMUTarget(ctx, "lm3s6965evb", elf, gdbremote.Config{})
	})
	out = strings.ReplaceAll(out, firmware.Dir()+"/", "")
	expect(t, out,
		"(polydbg) bt", "#0  fact (n=1) at fw.c:", "#5  0x", " in main () at fw.c:",
		"(polydbg) up 2", "#2  0x", " in fact (n=3) at fw.c:",
		"(polydbg) return 100", "Make fact return now? (y or n) [answered Y; input not from terminal]\n#0  0x",
		" in fact (n=4) at fw.c:", "(polydbg) bt", "#0  0x", " in fact (n=4) at fw.c:", "#1  0x", " in fact (n=5) at fw.c:",
		"#2  0x", " in main () at fw.c:",
		"(polydbg) continue", "main () at fw.c:",
		"(polydbg) print fact_result", "$1 = 2000\n", // 5 * 4 * 100
		"(polydbg) info inferiors", "  Num  Description       Connection ", // as wide as its widest entry, as gdb
		"\n* 1    process 1         1 (remote 127.0.0.1:", ") /", "fw.elf \n",
		"(polydbg) info proc\nNot supported on this target.\n",
	)
}
