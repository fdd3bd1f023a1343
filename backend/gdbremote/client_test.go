package gdbremote

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/polydbg/polydbg/backend/gdbremote/rsp"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeStub serves one connection: handle maps a command to its reply ("" = unknown,
// nil = no reply). With acks it acks every packet and expects acks.
type fakeStub struct {
	t      *testing.T
	ln     net.Listener
	acks   bool
	handle func(cmd string, w *stubWriter) bool // false: no reply
	mu     sync.Mutex
	got    []string
	feat   string // more qSupported features (set with features)
	done   chan struct{}
}

// features adds to the qSupported reply (before the client connects).
func (s *fakeStub) features(f string) {
	s.mu.Lock()
	s.feat = f
	s.mu.Unlock()
}

type stubWriter struct {
	conn net.Conn
	mu   sync.Mutex
}

func (w *stubWriter) raw(s string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.conn.Write([]byte(s))
}

func (w *stubWriter) packet(payload string) { w.raw(string(rsp.AppendFrame(nil, []byte(payload)))) }

func newFakeStub(t *testing.T, acks bool, handle func(cmd string, w *stubWriter) bool) *fakeStub {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &fakeStub{t: t, ln: ln, acks: acks, handle: handle, done: make(chan struct{})}
	go s.serve()
	t.Cleanup(func() { ln.Close(); <-s.done })
	return s
}

func (s *fakeStub) serve() {
	defer close(s.done)
	conn, err := s.ln.Accept()
	if err != nil {
		return
	}
	defer conn.Close()
	w := &stubWriter{conn: conn}
	r := bufio.NewReader(conn)
	noAck := false // every stub acks until no-ack mode is agreed
	for {
		f, err := rsp.ReadFrame(r)
		if err != nil {
			return
		}
		if f.Kind != rsp.Packet {
			continue
		}
		if !noAck {
			w.raw("+")
		}
		cmd := string(f.Payload)
		s.mu.Lock()
		s.got = append(s.got, cmd)
		s.mu.Unlock()
		switch {
		case strings.HasPrefix(cmd, "qSupported"):
			feat := "PacketSize=100;qXfer:features:read+;ConditionalBreakpoints+"
			s.mu.Lock()
			feat += s.feat
			s.mu.Unlock()
			if s.acks {
				feat += ";QStartNoAckMode-"
			} else {
				feat += ";QStartNoAckMode+"
			}
			w.packet(feat)
			continue
		case cmd == "QStartNoAckMode":
			w.packet("OK")
			noAck = true
			continue
		case cmd == "vCont?":
			w.packet("vCont;c;C;s;S")
			continue
		}
		if !s.handle(cmd, w) {
			continue
		}
	}
}

func (s *fakeStub) commands() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.got...)
}

func TestClientAckModeRLEAndEscapes(t *testing.T) {
	var written []byte
	s := newFakeStub(t, true, func(cmd string, w *stubWriter) bool {
		switch {
		case cmd == "g":
			// "0* " = '0' and 3 more: 0000; then "1*!" = 1 and 4 more
			w.packet("0* 1*!1")
		case strings.HasPrefix(cmd, "X"):
			hdr, data, _ := strings.Cut(cmd, ":")
			b, err := rsp.UnescapeBinary([]byte(data))
			if err != nil {
				w.packet("E01")
				return true
			}
			written = append(written, b...)
			_ = hdr
			w.packet("OK")
		case strings.HasPrefix(cmd, "m"):
			w.packet("E14")
		default:
			w.packet("")
		}
		return true
	})
	c := dial(t, s.ln.Addr().String(), Options{})
	ctx := testCtx(t, 5*time.Second)
	if c.NoAck() {
		t.Fatal("no-ack mode without the stub offering it")
	}
	if c.PacketSize() != 0x100 {
		t.Errorf("PacketSize %d", c.PacketSize())
	}
	g, err := c.ReadRegisters(ctx)
	if err != nil || hex.EncodeToString(g) != "0000111111" {
		t.Errorf("g = %x, %v", g, err)
	}
	data := []byte("a#b$c}d*e")
	if err := c.WriteMemory(ctx, 0x1000, data); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(written, data) {
		t.Errorf("escaped write arrived as %q", written)
	}
	_, err = c.ReadMemory(ctx, 0, 4)
	var se *StubError
	if !errors.As(err, &se) || se.Code != 0x14 {
		t.Errorf("m error: %v", err)
	}
	if _, err := c.Exchange(ctx, "qUnknown"); err != nil {
		t.Errorf("unknown packet: %v", err)
	}
	st := c.Stats()
	if st.PacketsSent < 6 || st.PacketsReceived < 6 {
		t.Errorf("stats %+v", st)
	}
}

func TestClientRLE(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"0* ", "0000"},
		{"a*\"b", "aaaaaab"},
		{"xyz", "xyz"},
		{"0*}", "0" + strings.Repeat("0", 0x7d-29)},
	} {
		got, err := rsp.ExpandRLE([]byte(tc.in))
		if err != nil || string(got) != tc.want {
			t.Errorf("rsp.ExpandRLE(%q) = %q, %v", tc.in, got, err)
		}
	}
	for _, bad := range []string{"*a", "a*", "a*\x01"} {
		if _, err := rsp.ExpandRLE([]byte(bad)); !errors.Is(err, ErrGarbage) {
			t.Errorf("rsp.ExpandRLE(%q): %v", bad, err)
		}
	}
}

func TestClientRetransmitOnNak(t *testing.T) {
	naks := 0
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		r := bufio.NewReader(conn)
		for {
			f, err := rsp.ReadFrame(r)
			if err != nil {
				return
			}
			if f.Kind != rsp.Packet {
				continue
			}
			if string(f.Payload) == "qC" && naks == 0 {
				naks++
				conn.Write([]byte("-")) // ask for it again
				continue
			}
			conn.Write([]byte("+"))
			switch cmd := string(f.Payload); {
			case strings.HasPrefix(cmd, "qSupported"):
				conn.Write(rsp.AppendFrame(nil, []byte("PacketSize=400")))
			case cmd == "qC":
				// first a reply with a bad rsp.Checksum: the client naks it, we resend
				conn.Write([]byte("$QC1#00"))
				conn.Write(rsp.AppendFrame(nil, []byte("QC1")))
			default:
				conn.Write(rsp.AppendFrame(nil, nil))
			}
		}
	}()
	c := dial(t, ln.Addr().String(), Options{})
	r, err := c.Exchange(testCtx(t, 5*time.Second), "qC")
	if err != nil || r != "QC1" {
		t.Fatalf("qC = %q %v", r, err)
	}
}

func TestClientDisconnectAndGarbage(t *testing.T) {
	cases := []struct {
		name  string
		reply func(w *stubWriter)
		want  error
	}{
		{"disconnect", func(w *stubWriter) { w.conn.Close() }, ErrClosed},
		{"garbage", func(w *stubWriter) { w.raw(strings.Repeat("garbage!", 200)) }, ErrGarbage},
		{"bad rsp.Checksum in no-ack mode", func(w *stubWriter) { w.raw("$OK#00") }, ErrGarbage},
		{"huge packet", func(w *stubWriter) { w.raw("$" + strings.Repeat("a", rsp.MaxRawPacket+10)) }, ErrGarbage},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newFakeStub(t, false, func(cmd string, w *stubWriter) bool {
				if cmd == "g" {
					tc.reply(w)
					return false
				}
				w.packet("")
				return true
			})
			c := dial(t, s.ln.Addr().String(), Options{})
			start := time.Now()
			_, err := c.ReadRegisters(testCtx(t, 5*time.Second))
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if time.Since(start) > 3*time.Second {
				t.Errorf("took %v", time.Since(start))
			}
			// The session is over: later commands fail at once.
			if _, err := c.Exchange(testCtx(t, time.Second), "?"); err == nil {
				t.Error("command after the end succeeded")
			}
			<-c.Done()
		})
	}
}

func TestClientDeadlines(t *testing.T) {
	s := newFakeStub(t, false, func(cmd string, w *stubWriter) bool {
		if cmd == "vCont;c" {
			return false // running: the stop reply comes later (never)
		}
		if cmd == "g" {
			return false // never answers
		}
		w.packet("")
		return true
	})
	c := dial(t, s.ln.Addr().String(), Options{Timeout: 300 * time.Millisecond})
	ctx := testCtx(t, 5*time.Second)
	// Waiting for a stop that does not come: the context ends the wait, not the session.
	if err := c.Continue(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Exchange(ctx, "g"); !errors.Is(err, ErrRunning) {
		t.Errorf("command while running: %v", err)
	}
	wctx, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	_, err := c.Wait(wctx)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) || !c.Running() || c.Err() != nil {
		t.Fatalf("wait: %v running=%v err=%v", err, c.Running(), c.Err())
	}
	if err := c.Interrupt(); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if _, err := c.Wait(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("wait after close: %v", err)
	}
}

func TestClientNoReplyTimeout(t *testing.T) {
	s := newFakeStub(t, false, func(cmd string, w *stubWriter) bool {
		if cmd == "g" {
			return false
		}
		w.packet("")
		return true
	})
	c := dial(t, s.ln.Addr().String(), Options{Timeout: 200 * time.Millisecond})
	start := time.Now()
	_, err := c.ReadRegisters(context.Background())
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
	<-c.Done() // a lost reply ends the session
}

func TestClientMonitorAndStopOutput(t *testing.T) {
	var out strings.Builder
	var mu sync.Mutex
	s := newFakeStub(t, false, func(cmd string, w *stubWriter) bool {
		switch {
		case strings.HasPrefix(cmd, "qRcmd,"):
			b, _ := hex.DecodeString(cmd[6:])
			w.packet("O" + hex.EncodeToString([]byte("you said ")))
			w.packet("O" + hex.EncodeToString(b))
			w.packet("OK")
		case cmd == "vCont;c":
			w.packet("O" + hex.EncodeToString([]byte("hello\n")))
			w.packet("T05thread:01;0f:00100000;0d:f0ff0020;swbreak:;")
		case strings.HasPrefix(cmd, "Z0,"):
			w.packet("OK")
		default:
			w.packet("")
		}
		return true
	})
	c := dial(t, s.ln.Addr().String(), Options{Output: func(s string) { mu.Lock(); out.WriteString(s); mu.Unlock() }})
	ctx := testCtx(t, 5*time.Second)
	got, err := c.Monitor(ctx, "reset halt")
	if err != nil || got != "you said reset halt" {
		t.Fatalf("monitor: %q %v", got, err)
	}
	if !c.HasVCont("c") || c.HasVCont("r") {
		t.Errorf("vCont actions %v", c.vcont)
	}
	if err := c.Continue(ctx); err != nil {
		t.Fatal(err)
	}
	sr, err := c.Wait(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if sr.Reason != "swbreak" || sr.Thread != "01" || Uint(sr.Regs[15], binary.LittleEndian) != 0x1000 {
		t.Errorf("stop %+v", sr)
	}
	mu.Lock()
	if out.String() != "you said reset halthello\n" {
		t.Errorf("output %q", out.String())
	}
	mu.Unlock()
	// Conditions go with Z0 as ;X<len>,<hex>.
	expr := []byte{axConst8, 1, axEnd}
	if _, err := c.SetBreakpoint(ctx, 0x1234, 2, expr); err != nil {
		t.Fatal(err)
	}
	cmds := s.commands()
	if last := cmds[len(cmds)-1]; last != "Z0,1234,2;X3,220127" {
		t.Errorf("Z0 with a condition sent as %q", last)
	}
}

func TestZ1Fallback(t *testing.T) {
	s := newFakeStub(t, false, func(cmd string, w *stubWriter) bool {
		switch {
		case strings.HasPrefix(cmd, "Z0"):
			w.packet("")
		case strings.HasPrefix(cmd, "Z1"), strings.HasPrefix(cmd, "z1"), strings.HasPrefix(cmd, "Z2"):
			w.packet("OK")
		default:
			w.packet("")
		}
		return true
	})
	c := dial(t, s.ln.Addr().String(), Options{})
	ctx := testCtx(t, 5*time.Second)
	k, err := c.SetBreakpoint(ctx, 0x100, 2)
	if err != nil || k != HardwareBreak {
		t.Fatalf("kind %v err %v", k, err)
	}
	if err := c.ClearBreakpoint(ctx, k, 0x100, 2); err != nil {
		t.Fatal(err)
	}
	if err := c.SetWatchpoint(ctx, WriteWatch, 0x2000, 4); err != nil {
		t.Fatal(err)
	}
	if err := c.SetWatchpoint(ctx, ReadWatch, 0x2000, 4); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Z3: %v", err)
	}
	want := []string{"Z0,100,2", "Z1,100,2", "z1,100,2", "Z2,2000,4", "Z3,2000,4"}
	got := s.commands()
	got = got[len(got)-len(want):]
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("commands %q", got)
	}
}

func TestParseStopReply(t *testing.T) {
	cases := []struct {
		in   string
		want StopReply
	}{
		{"S05", StopReply{Kind: StopSignal, Signal: 5}},
		{"T0506:0000000000000000;07:10e0ffffff7f0000;10:4011400000000000;thread:p1234.1234;core:1;",
			StopReply{Kind: StopSignal, Signal: 5, Thread: "p1234.1234", Core: 1}},
		{"T05watch:00601040;thread:01;", StopReply{Kind: StopSignal, Signal: 5, Reason: "watch", WatchAddr: 0x601040, Thread: "01"}},
		{"W00", StopReply{Kind: StopExited}},
		{"W2a;process:1234", StopReply{Kind: StopExited, Signal: 42, Pid: "1234"}},
		{"X09", StopReply{Kind: StopTerminated, Signal: 9}},
		{"N", StopReply{Kind: StopNoResumed}},
		{"Fwrite,1,2000,5", StopReply{Kind: StopFileIO}},
		{"T05thread:01;unknownfield:zz;", StopReply{Kind: StopSignal, Signal: 5, Thread: "01"}},
		{"T05create:;06:c006ddf7ff7f0000;thread:662f;core:1;", StopReply{Kind: StopSignal, Signal: 5, Reason: "create", Thread: "662f"}},
		{"w0;p1234.1235", StopReply{Kind: StopThreadExit, Thread: "p1234.1235"}},
		{"T05syscall_return:1b3;06:c006dd;thread:a3b;", StopReply{Kind: StopSignal, Signal: 5, Reason: "syscall_return", Syscall: 0x1b3, Thread: "a3b"}},
		{"T05syscall_entry:3c;thread:a3b;", StopReply{Kind: StopSignal, Signal: 5, Reason: "syscall_entry", Syscall: 0x3c, Thread: "a3b"}},
		{"T05exec:2f62696e2f74727565;thread:p1a.1a;", StopReply{Kind: StopSignal, Signal: 5, Reason: "exec", Exec: "/bin/true", Thread: "p1a.1a"}},
	}
	for _, tc := range cases {
		got, err := ParseStopReply(tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if got.Kind != tc.want.Kind || got.Signal != tc.want.Signal || got.Thread != tc.want.Thread ||
			got.Reason != tc.want.Reason || got.WatchAddr != tc.want.WatchAddr || got.Pid != tc.want.Pid || got.Syscall != tc.want.Syscall ||
			got.Exec != tc.want.Exec ||
			(tc.want.Core != 0 && got.Core != tc.want.Core) {
			t.Errorf("%q = %+v", tc.in, got)
		}
	}
	sr, _ := ParseStopReply("T0506:0000000000000000;07:10e0ffffff7f0000;10:4011400000000000;")
	if Uint(sr.Regs[0x10], binary.LittleEndian) != 0x401140 || Uint(sr.Regs[7], binary.LittleEndian) != 0x7fffffffe010 {
		t.Errorf("expedited %x", sr.Regs)
	}
	for _, bad := range []string{"", "Q", "T5", "Tzz", "T0506:zz;", "E01"} {
		if _, err := ParseStopReply(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestParseTargetDesc(t *testing.T) {
	docs := map[string]string{
		"target.xml": `<?xml version="1.0"?><!DOCTYPE target SYSTEM "gdb-target.dtd">
<target><architecture>arm</architecture>
<xi:include href="core.xml"/><xi:include href="sys.xml"/></target>`,
		"core.xml": `<feature name="org.gnu.gdb.arm.m-profile">
<reg name="r0" bitsize="32"/><reg name="r1" bitsize="32"/>
<reg name="pc" bitsize="32" type="code_ptr"/>
<reg name="xpsr" bitsize="32" regnum="25"/></feature>`,
		"sys.xml": `<feature name="org.gnu.gdb.arm.m-system"><reg name="msp" bitsize="32" regnum="26"/><reg name="psp" bitsize="32"/></feature>`,
	}
	d, err := ParseTargetDesc(func(a string) ([]byte, error) {
		s, ok := docs[a]
		if !ok {
			return nil, fmt.Errorf("no %s", a)
		}
		return []byte(s), nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if d.Arch != "arm" || len(d.Regs) != 6 {
		t.Fatalf("%+v", d)
	}
	want := map[string][2]int{"r0": {0, 0}, "r1": {1, 4}, "pc": {2, 8}, "xpsr": {25, 12}, "msp": {26, 16}, "psp": {27, 20}}
	for name, w := range want {
		r, ok := d.Reg(name)
		if !ok || r.Num != w[0] || r.Offset != w[1] {
			t.Errorf("%s = %+v", name, r)
		}
	}
	if r, _ := d.PCReg(); r.Name != "pc" || r.Type != "code_ptr" || r.Feature != "org.gnu.gdb.arm.m-profile" {
		t.Errorf("pc %+v", r)
	}
	g := make([]byte, 12)
	g[8] = 0x40
	if v := d.SplitG(g); Uint(v[2], binary.LittleEndian) != 0x40 || v[25] != nil {
		t.Errorf("SplitG %v", v)
	}
}

// An interrupt that crosses a stop of the target's own leaves gdbserver a SIGINT for the
// program, which stops the next run where it began: that stop is not reported, the run goes
// on. A SIGINT with no interrupt behind it is the program's, and reported.
func TestClientStaleInterruptNotReported(t *testing.T) {
	replies := []string{"T05swbreak:;", "T02", "T05swbreak:;", "T05swbreak:;", "T02"}
	var mu sync.Mutex
	s := newFakeStub(t, false, func(cmd string, w *stubWriter) bool {
		if cmd != "vCont;c" {
			w.packet("")
			return true
		}
		mu.Lock()
		r := replies[0]
		replies = replies[1:]
		mu.Unlock()
		w.packet(r)
		return true
	})
	c := dial(t, s.ln.Addr().String(), Options{Timeout: time.Second})
	ctx := testCtx(t, 5*time.Second)
	run := func(interrupt bool) StopReply {
		t.Helper()
		if err := c.Continue(ctx); err != nil {
			t.Fatal(err)
		}
		if interrupt {
			c.Interrupt()
		}
		sr, err := c.Wait(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return sr
	}
	if sr := run(true); sr.Signal != sigTRAP { // the breakpoint came first
		t.Fatalf("first stop %+v", sr)
	}
	if sr := run(false); sr.Signal != sigTRAP { // the interrupt's SIGINT is passed over
		t.Fatalf("second stop %+v (the stale SIGINT reported)", sr)
	}
	if sr := run(false); sr.Signal != sigTRAP {
		t.Fatalf("third stop %+v", sr)
	}
	if sr := run(false); sr.Signal != sigINT { // nobody interrupted: the program's own
		t.Fatalf("fourth stop %+v, want the program's SIGINT", sr)
	}
	if n := strings.Count(strings.Join(s.commands(), "\n"), "vCont;c"); n != 5 {
		t.Errorf("%d continues sent, want 5: %q", n, s.commands())
	}
}

// A read larger than one read may take (a garbage array bound's) is refused before any
// packet is sent or any buffer allocated.
func TestReadMemoryRefusesHugeReads(t *testing.T) {
	var c Client
	for _, n := range []int{-1, maxMemoryRead + 1, 1 << 62} {
		if b, err := c.ReadMemory(context.Background(), 0x1000, n); err == nil || b != nil {
			t.Errorf("ReadMemory of %d bytes: %d bytes, %v; want an error", n, len(b), err)
		}
	}
}
