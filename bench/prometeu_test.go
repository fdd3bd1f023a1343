package bench

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/polydbg/polydbg/backend/kitevm"
	"github.com/polydbg/polydbg/console"
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/kite"
)

// The console's cost over a plain run of the same code: the cartridge's frame() called
// by the console's frame loop (unpaced, with its budget, syscall counting, certification
// and telemetry), against the same frame() called from a loop of the program as
// `polydbg run` runs it (a Kite target under an engine session, no breakpoint).

const prometeuCode = `let acc = 0
fn work(n) {
    let s = 0
    for i in range(0, n) {
        s += i * i % 7
    }
    return s
}
fn frame() {
    acc += work(400)
}
`

const prometeuFrames = 300

func prometeuCart(b *testing.B) *console.Cartridge {
	dir := b.TempDir()
	manifest := `{"magic":"PMTU","cartridge_version":1,"app_id":9,"title":"Bench","app_version":"1","app_mode":"Game","entrypoint":"main.kite"}`
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(manifest), 0o644)
	os.WriteFile(filepath.Join(dir, "main.kite"), []byte(prometeuCode), 0o644)
	c, err := console.Load(dir)
	if err != nil {
		b.Fatal(err)
	}
	return c
}

func runSession(b *testing.B, tg engine.Target) {
	s := engine.NewSession(tg)
	sub := s.Subscribe()
	if err := s.Start(false); err != nil {
		b.Fatal(err)
	}
	for e := range sub.Events() {
		switch e.Kind {
		case engine.EventStopped:
			b.Fatalf("stopped: %s", e.Stop.Text)
		case engine.EventExited:
			if e.ExitCode != 0 {
				b.Fatalf("exit %d", e.ExitCode)
			}
		}
	}
	s.Close()
}

func runConsole(b *testing.B, cart *console.Cartridge) {
	con, err := console.New(cart, console.Options{FPS: 0, Frames: prometeuFrames})
	if err != nil {
		b.Fatal(err)
	}
	runSession(b, con.Target())
}

func runPlain(b *testing.B) {
	src := prometeuCode + "for f in range(0, " + itoa(prometeuFrames) + ") {\n    frame()\n}\n"
	prog, err := kite.Compile("plain.kite", []byte(src), nil)
	if err != nil {
		b.Fatal(err)
	}
	tg, err := kitevm.New(prog, kitevm.Options{})
	if err != nil {
		b.Fatal(err)
	}
	runSession(b, tg)
}

func itoa(n int) string {
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

func BenchmarkPrometeuConsole(b *testing.B) {
	cart := prometeuCart(b)
	b.ResetTimer()
	for range b.N {
		runConsole(b, cart)
	}
}

func BenchmarkPrometeuPlainRun(b *testing.B) {
	for range b.N {
		runPlain(b)
	}
}

// BenchmarkPrometeuOverhead runs both side by side and reports the console's time as a
// percentage over the plain run (goal: under 10): of the totals, and of the fastest run
// of each, which resists the noise of a shared machine best.
func BenchmarkPrometeuOverhead(b *testing.B) {
	cart := prometeuCart(b)
	var plain, cons time.Duration
	minPlain, minCons := time.Duration(1<<62), time.Duration(1<<62)
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		runPlain(b)
		t1 := time.Now()
		runConsole(b, cart)
		dp, dc := t1.Sub(t0), time.Since(t1)
		plain, cons = plain+dp, cons+dc
		minPlain, minCons = min(minPlain, dp), min(minCons, dc)
	}
	b.ReportMetric(100*(float64(cons)/float64(plain)-1), "overhead-%")
	b.ReportMetric(100*(float64(minCons)/float64(minPlain)-1), "min-overhead-%")
}
