package bench

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/polydbg/polydbg/backend/gdbremote"
	"github.com/polydbg/polydbg/internal/firmware"
	"github.com/polydbg/polydbg/internal/realparts"
	"github.com/polydbg/polydbg/launch"
	"github.com/polydbg/polydbg/protocol/aether"
	pb "github.com/polydbg/polydbg/protocol/aether/aetherpb"
)

// Aether's round trips against the stub's own: ReadRegister and a 64 KiB ReadMemory
// through the gRPC server on loopback, beside the same read as a bare RSP exchange
// (gdbremote.Client) with the same QEMU; and RTT throughput while the firmware writes as
// fast as it can, with what the polling costs the firmware.
//
//	cd bench && go test -run '^$' -bench Aether

type aetherRig struct {
	srv  *aether.Server
	tgt  *gdbremote.Target
	cl   pb.AetherDebugClient
	conn *grpc.ClientConn
	g    *grpc.Server
}

func (r *aetherRig) close() {
	r.conn.Close()
	r.g.Stop()
	r.srv.Close()
}

func aetherFirmware(b *testing.B) string {
	realparts.Need(b, "qemu-system-arm")
	return firmware.BuildRTT(b)
}

func startAether(b *testing.B, elf string, poll time.Duration) *aetherRig {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	d, err := launch.Start(ctx, launch.Spec{Kind: launch.QEMU, Machine: "lm3s6965evb", ELF: elf, MCU: launch.MCUOptions{PollPeriod: poll}})
	if err != nil {
		b.Fatal(err)
	}
	srv, err := aether.New(aether.Config{Debuggee: d, EventBuffer: 1 << 16})
	if err != nil {
		d.Close()
		b.Fatal(err)
	}
	tgt := d.Target().(*gdbremote.Target)
	g := grpc.NewServer(srv.ServerOptions()...)
	srv.Register(g)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go g.Serve(l)
	conn, err := grpc.NewClient(l.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	return &aetherRig{srv: srv, tgt: tgt, cl: pb.NewAetherDebugClient(conn), conn: conn, g: g}
}

func callCtx(b *testing.B) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	b.Cleanup(cancel)
	return ctx
}

// interleave times n calls of each of ours and theirs, alternating in rounds so that the
// load of a shared machine falls on both alike; it reports both per call and the ratio.
func interleave(b *testing.B, n int, ours, theirs func() error) {
	var tOurs, tTheirs time.Duration
	const rounds = 10
	for range rounds {
		t0 := time.Now()
		for range n / rounds {
			if err := ours(); err != nil {
				b.Fatal(err)
			}
		}
		t1 := time.Now()
		for range n / rounds {
			if err := theirs(); err != nil {
				b.Fatal(err)
			}
		}
		tOurs += t1.Sub(t0)
		tTheirs += time.Since(t1)
	}
	per := float64(n / rounds * rounds)
	b.ReportMetric(float64(tOurs.Microseconds())/per, "aether-µs/call")
	b.ReportMetric(float64(tTheirs.Microseconds())/per, "rsp-µs/call")
	b.ReportMetric(float64(tOurs)/float64(tTheirs), "aether/rsp")
}

// BenchmarkAetherReadRegister: ReadRegister(pc) through gRPC (served from the stop's
// register cache after the first) against a bare 'p' exchange with QEMU.
func BenchmarkAetherReadRegister(b *testing.B) {
	r := startAether(b, aetherFirmware(b), -1)
	defer r.close()
	ctx := callCtx(b)
	pcr, _ := r.tgt.Desc().PCReg()
	c := r.tgt.Client()
	for b.Loop() {
		interleave(b, 2000, func() error {
			_, err := r.cl.ReadRegister(ctx, &pb.ReadRegisterRequest{RegisterNumber: uint32(pcr.Num)})
			return err
		}, func() error {
			_, err := c.ReadRegister(ctx, pcr.Num)
			return err
		})
	}
}

// BenchmarkAetherReadMemory64K: a 64 KiB ReadMemory through gRPC against the same read as
// bare 'm'/'x' exchanges (split by the stub's packet size) with QEMU.
func BenchmarkAetherReadMemory64K(b *testing.B) {
	r := startAether(b, aetherFirmware(b), -1)
	defer r.close()
	ctx := callCtx(b)
	c := r.tgt.Client()
	for b.Loop() {
		interleave(b, 100, func() error {
			_, err := r.cl.ReadMemory(ctx, &pb.ReadMemoryRequest{Address: 0x20000000, Length: 64 << 10})
			return err
		}, func() error {
			_, err := c.ReadMemory(ctx, 0x20000000, 64<<10)
			return err
		})
	}
}

// BenchmarkAetherRTT: the firmware writes 40-byte lines into its RTT up-buffer (1 KiB) as
// fast as it can while the server drains it every 10 ms (a brief halt each time, QEMU's
// stub cannot read a running guest): RTT bytes per second delivered as RttEvents, and
// the firmware's main-loop rate (fw-speed) against the same firmware with RTT polling off,
// at a 10 ms and at the default 20 ms polling period.
func BenchmarkAetherRTT(b *testing.B) {
	elf := aetherFirmware(b)
	const window = 3 * time.Second
	loops := func(poll time.Duration, spam bool) (float64, float64) {
		r := startAether(b, elf, poll)
		defer r.close()
		ctx := callCtx(b)
		sym := r.tgt.Symbols()
		spamAt, _, _ := sym.Symbol("spam")
		counterAt, _, _ := sym.Symbol("counter")
		sctx, cancel := context.WithCancel(ctx)
		defer cancel()
		events, err := r.cl.SubscribeEvents(sctx, &pb.Empty{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := events.Header(); err != nil {
			b.Fatal(err)
		}
		got := make(chan int64, 1)
		go func() {
			var n int64
			for {
				e, err := events.Recv()
				if err != nil {
					got <- n
					return
				}
				if rt := e.GetRtt(); rt != nil && strings.Contains(string(rt.Data), "spam") {
					n += int64(len(rt.Data))
				}
			}
		}()
		read := func() uint32 {
			m, err := r.cl.ReadMemory(ctx, &pb.ReadMemoryRequest{Address: counterAt, Length: 4})
			if err != nil {
				b.Fatal(err)
			}
			return uint32(m.Data[0]) | uint32(m.Data[1])<<8 | uint32(m.Data[2])<<16 | uint32(m.Data[3])<<24
		}
		if _, err := r.cl.Resume(ctx, &pb.Empty{}); err != nil {
			b.Fatal(err)
		}
		// past the start-up code, which clears spam with the rest of .bss
		for deadline := time.Now().Add(10 * time.Second); read() == 0; {
			if time.Now().After(deadline) {
				b.Fatal("the firmware's main loop does not run")
			}
		}
		if spam {
			if _, err := r.cl.WriteMemory(ctx, &pb.WriteMemoryRequest{Address: spamAt, Data: []byte{1, 0, 0, 0}}); err != nil {
				b.Fatal(err)
			}
		}
		c0, t0 := read(), time.Now()
		time.Sleep(window) // the measuring window, not a synchronisation
		c1, dt := read(), time.Since(t0)
		cancel()
		n := <-got
		return float64(c1-c0) / dt.Seconds(), float64(n) / dt.Seconds()
	}
	for b.Loop() {
		base, _ := loops(-1, true)
		p10, bps10 := loops(10*time.Millisecond, true)
		p20, bps20 := loops(aether.DefaultPollPeriod, true)
		b.ReportMetric(bps10/1024, "rtt-KiB/s@10ms")
		b.ReportMetric(p10/base, "fw-speed@10ms")
		b.ReportMetric(bps20/1024, "rtt-KiB/s@20ms")
		b.ReportMetric(p20/base, "fw-speed@20ms")
	}
}
