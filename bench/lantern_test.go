package bench

// debuglantern UPLOAD against the copy itself (issue 18): the daemon (`polydbg lantern
// serve`, a process of its own) against two bare Go receivers, each a process of its own too
// (this test binary run again as a receiver): one that io.Copies the socket into a fresh
// memfd (the floor of storing the bytes), one that reads and drops them (the floor of the
// transfer). The same client (this process, one write of the whole payload) sends the same
// bytes to all three, in rotating order, in the same loop.
//
//	cd bench && go test -run '^$' -bench LanternUpload -benchtime 5x
//
// POLYDBG_UPLOAD_MIB sets the payload size (default 256 MiB, as in the issue).

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/internal/memfd"
	"github.com/polydbg/polydbg/protocol/lantern"
)

// receiverEnv makes this test binary a bare receiver (see TestMain): "discard" or "memfd",
// listening on the address in receiverAddrEnv.
const (
	receiverEnv     = "POLYDBG_BENCH_RECEIVER"
	receiverAddrEnv = "POLYDBG_BENCH_RECEIVER_ADDR"
)

func uploadSize() int64 {
	if s := os.Getenv("POLYDBG_UPLOAD_MIB"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return int64(n) << 20
		}
	}
	return 256 << 20
}

func elfPayload(size int64) []byte {
	b := make([]byte, size)
	copy(b, "\x7fELF")
	for i := 4; i < len(b); i++ {
		b[i] = byte(i * 7)
	}
	return b
}

// runReceiver serves bare copies: for each connection, a line with the size, then that many
// bytes into a fresh memfd (closed after) or nowhere, then one byte of acknowledgement.
func runReceiver(mode, addr string) int {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			return 1
		}
		go func() {
			defer c.Close()
			var size int64
			if _, err := fmt.Fscanf(c, "%d\n", &size); err != nil {
				return
			}
			for {
				var dst io.Writer = io.Discard
				var f *os.File
				if mode == "memfd" {
					if f, err = memfd.New("baseline"); err != nil {
						return
					}
					dst = f
				}
				_, err := io.CopyN(dst, c, size)
				if f != nil {
					f.Close()
				}
				if err != nil {
					return
				}
				c.Write([]byte{'\n'})
			}
		}()
	}
}

// freeAddr is a loopback address with a port that was free a moment ago.
func freeAddr(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// startProc starts cmd and waits until addr accepts connections; the process is killed at
// the end of the benchmark.
func startProc(b *testing.B, cmd *exec.Cmd, addr string) *exec.Cmd {
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	for deadline := time.Now().Add(30 * time.Second); ; {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return cmd
		}
		if time.Now().After(deadline) {
			b.Fatalf("%s: not listening on %s: %v", cmd.Path, addr, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// bareSink is a connection to a bare receiver.
type bareSink struct{ c net.Conn }

func dialBare(b *testing.B, mode string, size int64) *bareSink {
	addr := freeAddr(b)
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), receiverEnv+"="+mode, receiverAddrEnv+"="+addr)
	startProc(b, cmd, addr)
	c, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "%d\n", size)
	return &bareSink{c}
}

func (s *bareSink) send(b *testing.B, payload []byte) {
	if _, err := s.c.Write(payload); err != nil {
		b.Fatal(err)
	}
	var ack [1]byte
	if _, err := io.ReadFull(s.c, ack[:]); err != nil {
		b.Fatal(err)
	}
}

// buildPolydbg builds the polydbg command (of this checkout) into a temporary directory.
func buildPolydbg(b *testing.B) string {
	bin := filepath.Join(b.TempDir(), "polydbg")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/polydbg")
	cmd.Dir = ".." // in the main module, with its own go.sum
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("building polydbg: %v\n%s", err, out)
	}
	return bin
}

// peakRSS is a process's peak resident memory (VmHWM) in bytes, or -1.
func peakRSS(pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return -1
}

// BenchmarkLanternUpload: UPLOAD into the daemon (then DELETE) against the bare memfd
// receiver and the bare discarding receiver. Metrics: each one's MiB/s, the ratios of the
// daemon's throughput to each floor (goal: at least 0.9 of the memfd copy), and the daemon's
// peak resident memory (goal: under 64 MiB).
func BenchmarkLanternUpload(b *testing.B) {
	size := uploadSize()
	payload := elfPayload(size)
	laddr := freeAddr(b)
	daemon := startProc(b, exec.Command(buildPolydbg(b), "lantern", "serve", "--listen", laddr,
		"--max-bytes", strconv.FormatInt(2*size, 10)), laddr)
	lc, err := lantern.Dial(laddr, "", 10*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	defer lc.Close()
	upload := func() {
		id, err := lc.Upload(bytes.NewReader(payload), size, "")
		if err != nil {
			b.Fatal(err)
		}
		if _, err := lc.Do("DELETE " + id); err != nil {
			b.Fatal(err)
		}
	}
	memfd, discard := dialBare(b, "memfd", size), dialBare(b, "discard", size)
	sinks := []func(){upload, func() { memfd.send(b, payload) }, func() { discard.send(b, payload) }}
	for _, s := range sinks { // warm up every path once
		s()
	}
	var took [3]time.Duration
	var toMemfd, toDiscard []float64 // per round: the floor's time over the daemon's
	b.SetBytes(size)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var round [3]time.Duration
		for k := range sinks { // rotate the order, so that no path always runs first
			j := (i + k) % len(sinks)
			t0 := time.Now()
			sinks[j]()
			round[j] = time.Since(t0)
			took[j] += round[j]
		}
		toMemfd = append(toMemfd, round[1].Seconds()/round[0].Seconds())
		toDiscard = append(toDiscard, round[2].Seconds()/round[0].Seconds())
	}
	b.StopTimer()
	mib := float64(size) * float64(b.N) / (1 << 20)
	b.ReportMetric(mib/took[0].Seconds(), "lantern-MiB/s")
	b.ReportMetric(mib/took[1].Seconds(), "memfd-MiB/s")
	b.ReportMetric(mib/took[2].Seconds(), "discard-MiB/s")
	// The median of the rounds' ratios: a round's three copies run within a second of each
	// other, so a burst of load from elsewhere falls on one round, not on one path.
	b.ReportMetric(median(toMemfd), "ratio-memfd")
	b.ReportMetric(median(toDiscard), "ratio-discard")
	if rss := peakRSS(daemon.Process.Pid); rss > 0 {
		b.ReportMetric(float64(rss)/(1<<20), "daemon-peak-MiB")
	}
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
