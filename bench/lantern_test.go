package bench

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"testing"
	"time"

	"github.com/polydbg/polydbg/backend/process"
	"github.com/polydbg/polydbg/protocol/lantern"
)

// uploadSize is the size of the binary uploaded in each iteration.
const uploadSize = 32 << 20

func elfPayload() []byte {
	b := make([]byte, uploadSize)
	copy(b, "\x7fELF")
	for i := 4; i < len(b); i++ {
		b[i] = byte(i * 7)
	}
	return b
}

// tcpCopyServer is the baseline: a loopback server that reads exactly the bytes it is sent
// and acknowledges them with one byte, with no protocol and no storage.
func tcpCopyServer(b *testing.B, toMemfd bool) (string, func()) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				for {
					var dst io.Writer = io.Discard
					var f *os.File
					if toMemfd {
						var err error
						if f, err = process.NewMemfd("baseline"); err != nil {
							return
						}
						dst = f
					}
					_, err := io.CopyN(dst, c, uploadSize)
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
	}()
	return ln.Addr().String(), func() { ln.Close() }
}

func lanternServer(b *testing.B) (string, func()) {
	srv, err := lantern.NewServer(lantern.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { srv.Serve(ctx, ln); close(done) }()
	return ln.Addr().String(), func() { cancel(); <-done; srv.Close() }
}

func tcpCopyOnce(b *testing.B, c net.Conn, payload []byte) {
	if _, err := c.Write(payload); err != nil {
		b.Fatal(err)
	}
	var ack [1]byte
	if _, err := io.ReadFull(c, ack[:]); err != nil {
		b.Fatal(err)
	}
}

func lanternUploadOnce(b *testing.B, c *lantern.Client, payload []byte) {
	id, err := c.Upload(bytes.NewReader(payload), int64(len(payload)), "")
	if err != nil {
		b.Fatal(err)
	}
	if _, err := c.Do("DELETE " + id); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkLanternUpload measures UPLOAD of a 32 MiB binary into a memfd on loopback (then
// DELETE) against a plain TCP copy of the same bytes, run side by side. The "ratio" metric
// is lantern's throughput over the baseline's (goal: at least 0.8).
func BenchmarkLanternUpload(b *testing.B) {
	b.Run("vs-tcp-discard", func(b *testing.B) { benchUpload(b, false) })
	b.Run("vs-tcp-memfd", func(b *testing.B) { benchUpload(b, true) })
}

func benchUpload(b *testing.B, toMemfd bool) {
	payload := elfPayload()
	taddr, tstop := tcpCopyServer(b, toMemfd)
	defer tstop()
	laddr, lstop := lanternServer(b)
	defer lstop()
	tc, err := net.Dial("tcp", taddr)
	if err != nil {
		b.Fatal(err)
	}
	defer tc.Close()
	lc, err := lantern.Dial(laddr, "", 5*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	defer lc.Close()
	// Warm up both paths once.
	tcpCopyOnce(b, tc, payload)
	lanternUploadOnce(b, lc, payload)
	b.SetBytes(uploadSize)
	b.ResetTimer()
	var tcpTime, lanternTime time.Duration
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		tcpCopyOnce(b, tc, payload)
		t1 := time.Now()
		lanternUploadOnce(b, lc, payload)
		t2 := time.Now()
		tcpTime += t1.Sub(t0)
		lanternTime += t2.Sub(t1)
	}
	b.StopTimer()
	mb := float64(uploadSize) * float64(b.N) / (1 << 20)
	b.ReportMetric(mb/tcpTime.Seconds(), "tcp-MiB/s")
	b.ReportMetric(mb/lanternTime.Seconds(), "lantern-MiB/s")
	b.ReportMetric(tcpTime.Seconds()/lanternTime.Seconds(), "ratio")
}
