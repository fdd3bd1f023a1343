package bench

import (
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// cLuaRunner runs a Lua program in C Lua 5.4 (Debian's lua5.4), the reference people who
// embed a scripting language know: one whole process per run, the program on its stdin
// followed by a line that writes its global result. The process's start-up is part of the
// time (about 1 ms, against 50 ms or more for the programs); its CPU time is counted by
// cpuTime, which adds the waited-for children of the benchmark process.
func cLuaRunner(file string, src []byte) (runner, error) {
	path, err := exec.LookPath("lua5.4")
	if err != nil {
		return nil, fmt.Errorf("%v (run bench/setup.sh to install Debian's lua5.4)", err)
	}
	prog := append(append([]byte(nil), src...), "\nio.write(string.format('%d', result))\n"...)
	return func() (int64, error) {
		cmd := exec.Command(path, "-")
		cmd.Stdin = bytes.NewReader(prog)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return 0, fmt.Errorf("%s: %v: %s", file, err, stderr.String())
		}
		return strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	}, nil
}

// BenchmarkKiteVsLua54 runs each program in Kite and in C Lua 5.4 alternately, one run of
// each per round, so that the machine's load falls on both alike, and reports per program
// the ratio Kite/Lua of the fastest runs and the median of the rounds' ratios, in CPU time
// (the Kite process's own, garbage collector included; the lua5.4 child's) and wall-clock.
//
//	cd bench && go test -run '^$' -bench KiteVsLua54 -benchtime 10x
func BenchmarkKiteVsLua54(b *testing.B) {
	for _, name := range peerPrograms {
		b.Run(name, func(b *testing.B) {
			k, l := peerRunner(b, name, "kite"), peerRunner(b, name, "lua5.4")
			var kc, lc, kw, lw, rc, rw []float64
			for i := 0; i < b.N; i++ {
				kcpu, kwall := timedRun(b, k, name)
				lcpu, lwall := timedRun(b, l, name)
				kc, lc, kw, lw = append(kc, kcpu), append(lc, lcpu), append(kw, kwall), append(lw, lwall)
				rc, rw = append(rc, kcpu/lcpu), append(rw, kwall/lwall)
			}
			b.ReportMetric(slices.Min(kc)/slices.Min(lc), "cpu-ratio-min")
			b.ReportMetric(median(rc), "cpu-ratio-median")
			b.ReportMetric(slices.Min(kw)/slices.Min(lw), "wall-ratio-min")
			b.ReportMetric(median(rw), "wall-ratio-median")
			resultsMu.Lock()
			vsLua[name] = [6]float64{slices.Min(kc), slices.Min(lc), slices.Min(kc) / slices.Min(lc), median(rc),
				slices.Min(kw) / slices.Min(lw), median(rw)}
			resultsMu.Unlock()
		})
	}
}

var vsLua = map[string][6]float64{}

// timedRun runs one program once, checks its result, and returns its CPU and wall time.
func timedRun(b *testing.B, run runner, name string) (cpu, wall float64) {
	c0, _ := cpuTime()
	t0 := time.Now()
	got, err := run()
	wall = float64(time.Since(t0).Nanoseconds())
	c1, _ := cpuTime()
	if err != nil {
		b.Fatal(err)
	}
	if got != wantChecksum[name] {
		b.Fatalf("checksum %d, want %d", got, wantChecksum[name])
	}
	return float64((c1 - c0).Nanoseconds()), wall
}

func init() { reports = append(reports, vsLuaTable) }

// vsLuaTable prints BenchmarkKiteVsLua54's figures.
func vsLuaTable(w io.Writer) {
	var rows [][]string
	for _, name := range peerPrograms {
		v, ok := vsLua[name]
		if !ok {
			continue
		}
		rows = append(rows, []string{name, fmtNs(v[0], true), fmtNs(v[1], true),
			fmt.Sprintf("%.2f", v[2]), fmt.Sprintf("%.2f", v[3]), fmt.Sprintf("%.2f", v[4]), fmt.Sprintf("%.2f", v[5])})
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(w, "\nKite against C Lua 5.4, alternating runs (CPU ns of the fastest run; ratio = Kite/Lua 5.4; goal <= 2.00)")
	printTable(w, []string{"program", "kite cpu", "lua5.4 cpu", "cpu min/min", "cpu median", "wall min/min", "wall median"}, rows)
}
