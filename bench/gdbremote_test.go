package bench

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/backend/gdbremote"
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/firmware"
	"github.com/polydbg/polydbg/internal/realparts"
)

// The same false conditional breakpoint, hit 10,000 times, under polydbg and under
// `gdb -batch`, against gdbserver (loop.c: work_add with i == 9999, so 9,999 false hits
// and one true) and against QEMU (internal/firmware's fw.c: busy_add with loops >= 10000: 9,999 false hits).
// gdb's start-up and connection time is measured separately and subtracted.
//
//	cd bench && go test -run '^$' -bench GDBRemote -benchtime 1x

const testdata = "../backend/gdbremote/testdata"

func markerLine(b *testing.B, src, name string) int {
	f, err := os.Open(src)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if strings.Contains(sc.Text(), "LINE:"+name+" ") {
			return n
		}
	}
	b.Fatalf("no marker %s", name)
	return 0
}

func buildLoop(b *testing.B) string {
	realparts.Need(b, "gcc", "gdbserver", "gdb")
	out := filepath.Join(b.TempDir(), "loop")
	if o, err := exec.Command("gcc", "-g", "-O0", "-o", out, filepath.Join(testdata, "native/loop.c")).CombinedOutput(); err != nil {
		b.Fatalf("gcc: %v %s", err, o)
	}
	return out
}

func buildFW(b *testing.B) string {
	realparts.Need(b, "qemu-system-arm", "gdb-multiarch")
	return firmware.Build(b)
}

// ours runs the session until the conditional breakpoint stops it; it returns the time
// from Start to the stop and the packets exchanged. The session hands the condition to the
// target (engine.TrapConditioner), which has the stub evaluate it where it can.
func ours(b *testing.B, tg *gdbremote.Target, file string, line int, cond string) (time.Duration, int64) {
	s := engine.NewSession(tg)
	defer s.Close()
	sub := s.Subscribe()
	bp, err := s.SetBreakpoint(engine.BreakpointSpec{Kind: engine.LineBreakpoint, File: file, Line: line, Condition: cond})
	if err != nil {
		b.Fatal(err)
	}
	before := tg.Client().Stats()
	start := time.Now()
	if err := s.Start(false); err != nil {
		b.Fatal(err)
	}
	for e := range sub.Events() {
		if e.Kind == engine.EventStopped {
			if e.Stop.BreakpointID != bp.ID {
				b.Fatalf("stop %+v", e.Stop)
			}
			break
		}
		if e.Kind == engine.EventExited || e.Kind == engine.EventTerminated {
			b.Fatalf("ended: %+v", e)
		}
	}
	d := time.Since(start)
	after := tg.Client().Stats()
	return d, after.PacketsSent + after.PacketsReceived - before.PacketsSent - before.PacketsReceived
}

// gdbRun runs gdb -batch with the commands and returns its wall time.
func gdbRun(b *testing.B, gdb string, args ...string) (time.Duration, string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := time.Now()
	out, err := exec.CommandContext(ctx, gdb, append([]string{"-batch", "-nx", "-ex", "set pagination off", "-ex", "set confirm off"}, args...)...).CombinedOutput()
	if err != nil {
		b.Fatalf("%s: %v\n%s", gdb, err, out)
	}
	return time.Since(start), string(out)
}

func report(b *testing.B, name string, ourT time.Duration, packets int64, gdbT time.Duration, hits int) {
	b.ReportMetric(float64(ourT.Microseconds())/float64(hits), "polydbg-µs/hit")
	b.ReportMetric(float64(gdbT.Microseconds())/float64(hits), "gdb-µs/hit")
	b.ReportMetric(float64(packets)/float64(hits), "polydbg-packets/hit")
	b.ReportMetric(float64(gdbT)/float64(ourT), "gdb/polydbg")
	fmt.Printf("%s: polydbg %v (%d packets), gdb %v for %d hits: gdb/polydbg = %.1fx\n",
		name, ourT.Round(time.Millisecond), packets, gdbT.Round(time.Millisecond), hits, float64(gdbT)/float64(ourT))
}

func BenchmarkGDBRemoteGdbserverFalseCondition(b *testing.B) {
	prog := buildLoop(b)
	line := markerLine(b, filepath.Join(testdata, "native/loop.c"), "work_add")
	const cond = "i == 9999"
	for range b.N {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		tg, err := gdbremote.LaunchNative(ctx, prog, nil, gdbremote.Config{})
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		ourT, packets := ours(b, tg, "loop.c", line, cond)
		tg.Close()
		if packets > 100 {
			b.Fatalf("%d packets: the condition was not evaluated by gdbserver", packets)
		}

		run := func(extra ...string) time.Duration {
			stub, err := gdbremote.StartGdbserver(context.Background(), prog, nil, gdbremote.StubOptions{})
			if err != nil {
				b.Fatal(err)
			}
			defer stub.Stop()
			args := []string{"-ex", "file " + prog, "-ex", "target extended-remote " + stub.Addr}
			args = append(args, extra...)
			args = append(args, "-ex", "kill")
			d, out := gdbRun(b, "gdb", args...)
			if len(extra) > 4 && !strings.Contains(out, "$1 = 9999") {
				b.Fatalf("gdb output:\n%s", out)
			}
			return d
		}
		base := run("-ex", "break main", "-ex", "continue")
		full := run("-ex", fmt.Sprintf("break loop.c:%d if %s", line, cond), "-ex", "continue", "-ex", "print i")
		report(b, "gdbserver", ourT, packets, full-base, 10000)
	}
}

func BenchmarkGDBRemoteQEMUFalseCondition(b *testing.B) {
	elf := buildFW(b)
	line := firmware.Line(b, "busy_add")
	hits := 10000
	if s := os.Getenv("POLYDBG_BENCH_HITS"); s != "" {
		hits, _ = strconv.Atoi(s)
	}
	cond := fmt.Sprintf("loops >= %d", hits)
	for range b.N {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		tg, err := gdbremote.StartQEMUTarget(ctx, "mps2-an385", elf, gdbremote.Config{})
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		ourT, packets := ours(b, tg, "fw.c", line, cond)
		tg.Close()

		run := func(extra ...string) time.Duration {
			stub, err := gdbremote.StartQEMU(context.Background(), "mps2-an385", elf, gdbremote.StubOptions{})
			if err != nil {
				b.Fatal(err)
			}
			defer stub.Stop()
			args := []string{"-ex", "file " + elf, "-ex", "target remote " + stub.Addr}
			args = append(args, extra...)
			d, out := gdbRun(b, "gdb-multiarch", args...)
			if len(extra) > 4 && !strings.Contains(out, fmt.Sprintf("$1 = %d", hits)) {
				b.Fatalf("gdb output:\n%s", out)
			}
			return d
		}
		base := run("-ex", "break Reset_Handler", "-ex", "continue")
		full := run("-ex", fmt.Sprintf("break fw.c:%d if %s", line, cond), "-ex", "continue", "-ex", "print loops")
		report(b, "qemu", ourT, packets, full-base, hits)
	}
}
