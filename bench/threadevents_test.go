package bench

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/backend/gdbremote"
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/realparts"
)

// What live thread events cost a program that hits no breakpoint. A program that makes
// system calls must pay nothing: glibc's events (gdbserver before 15) stop the program
// only when a thread starts or ends, where catching the clone and exit system calls would
// stop it at every system call. A program that starts threads pays a stop at each start
// and end. programs/syscalls.c (200,000 getppid() calls) and programs/threadchurn.c (2,000
// threads one after the other) time themselves; each runs plain (the floor), under polydbg
// with thread events and under polydbg without them (gdbremote.Config.NoThreadEvents), in
// the same run.
//
//	cd bench && go test -run '^$' -bench ThreadEvents -benchtime 3x
func BenchmarkGDBRemoteThreadEvents(b *testing.B) {
	realparts.Need(b, "gcc", "gdbserver")
	for _, name := range []string{"syscalls", "threadchurn"} {
		b.Run(name, func(b *testing.B) {
			prog := filepath.Join(b.TempDir(), name)
			if o, err := exec.Command("gcc", "-O1", "-pthread", "-o", prog, "programs/"+name+".c").CombinedOutput(); err != nil {
				b.Fatalf("gcc: %v %s", err, o)
			}
			var plain, live, off time.Duration
			for range b.N {
				out, err := exec.Command(prog).Output()
				if err != nil {
					b.Fatal(err)
				}
				plain += selfTimed(b, string(out))
				live += underPolydbg(b, prog, gdbremote.Config{}, "nptl")
				off += underPolydbg(b, prog, gdbremote.Config{NoThreadEvents: true}, "")
			}
			b.ReportMetric(float64(live)/float64(plain), "live/plain")
			b.ReportMetric(float64(off)/float64(plain), "off/plain")
			n := time.Duration(b.N)
			fmt.Printf("%s: plain %v, polydbg with live thread events %v (%.2fx), without %v (%.2fx)\n",
				name, plain/n, live/n, float64(live)/float64(plain), off/n, float64(off)/float64(plain))
		})
	}
}

// underPolydbg runs prog to its end in an engine session and returns the time it measured.
func underPolydbg(b *testing.B, prog string, cfg gdbremote.Config, how string) time.Duration {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tg, err := gdbremote.LaunchNative(ctx, prog, nil, cfg)
	if err != nil {
		b.Fatal(err)
	}
	if got := tg.LiveThreadEvents(); got != how {
		b.Fatalf("thread events %q, want %q", got, how)
	}
	s := engine.NewSession(tg)
	defer s.Close()
	sub := s.Subscribe()
	if err := s.Start(false); err != nil {
		b.Fatal(err)
	}
	var out strings.Builder
	for e := range sub.Events() {
		switch e.Kind {
		case engine.EventOutput:
			out.WriteString(e.Text)
		case engine.EventStopped:
			b.Fatalf("stopped: %+v", e.Stop)
		}
	}
	return selfTimed(b, out.String())
}

func selfTimed(b *testing.B, out string) time.Duration {
	ms, ok := strings.CutPrefix(strings.TrimSpace(out), "ms ")
	n, err := strconv.Atoi(ms)
	if !ok || err != nil {
		b.Fatalf("program output %q", out)
	}
	return time.Duration(max(n, 1)) * time.Millisecond
}
