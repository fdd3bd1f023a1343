package aether

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/backend/gdbremote"
	"github.com/polydbg/polydbg/internal/firmware"
	"github.com/polydbg/polydbg/internal/realparts"
	"github.com/polydbg/polydbg/launch"
	pb "github.com/polydbg/polydbg/protocol/aether/aetherpb"
)

// buildFirmware builds the RTT test firmware for the lm3s6965's Cortex-M3.
func buildFirmware(t testing.TB) string { return firmware.BuildRTT(t) }

// srcLine finds the line of a "LINE:name" marker in the firmware source.
func srcLine(t testing.TB, name string) int { return firmware.RTTLine(t, name) }

// rig is a server on QEMU with a gRPC client.
type rig struct {
	t     *testing.T
	srv   *Server
	cl    pb.AetherDebugClient
	addr  string
	elf   string
	sym   *elfsym.File
	uart1 string
	stub  *gdbremote.Stub
	ctx   context.Context
}

func newRig(t *testing.T, cfg Config, poll time.Duration) *rig {
	realparts.Need(t, "qemu-system-arm")
	elf := buildFirmware(t)
	dir := t.TempDir()
	uart1 := filepath.Join(dir, "uart1")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	d, err := launch.Start(ctx, launch.Spec{Kind: launch.QEMU, Machine: "lm3s6965evb", ELF: elf, QEMUSerial: []string{"null", "file:" + uart1},
		SVD: "../../backend/mcu/svd/testdata/lm3s6965.svd", MCU: launch.MCUOptions{PollPeriod: poll}})
	if err != nil {
		t.Fatal(err)
	}
	cfg.Debuggee = d
	srv, err := New(cfg)
	if err != nil {
		d.Close()
		t.Fatal(err)
	}
	g := grpc.NewServer(srv.ServerOptions()...)
	srv.Register(g)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go g.Serve(l)
	conn, err := grpc.NewClient(l.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()), rpcTimeout())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		conn.Close()
		g.Stop()
		srv.Close()
	})
	sym, err := elfsym.Open(elf)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sym.Close() })
	return &rig{t: t, srv: srv, cl: pb.NewAetherDebugClient(conn), addr: l.Addr().String(), elf: elf, sym: sym,
		uart1: uart1, stub: d.Target().(*gdbremote.Target).Stub(), ctx: ctx}
}

// callTimeout bounds every unary call of the tests: a regression fails quickly instead
// of hanging the test binary.
const callTimeout = 20 * time.Second

// rpcTimeout is a client option that gives every unary call a callTimeout deadline.
func rpcTimeout() grpc.DialOption {
	return grpc.WithUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		ctx, cancel := context.WithTimeout(ctx, callTimeout)
		defer cancel()
		return invoker(ctx, method, req, reply, cc, opts...)
	})
}

// agent collects the events of one subscription.
type agent struct {
	t      *testing.T
	mu     sync.Mutex
	events []*pb.DebugEvent
	wake   chan struct{}
}

// slowAgent subscribes on its own connection whose flow-control window is fixed at
// 64 KiB, so that unread events stay on the server.
func (r *rig) slowAgent() (pb.AetherDebug_SubscribeEventsClient, context.CancelFunc) {
	conn, err := grpc.NewClient(r.addr, grpc.WithTransportCredentials(insecure.NewCredentials()), rpcTimeout(),
		grpc.WithInitialWindowSize(1<<16), grpc.WithInitialConnWindowSize(1<<16))
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() { conn.Close() })
	ctx, cancel := context.WithCancel(r.ctx)
	r.t.Cleanup(cancel)
	st, err := pb.NewAetherDebugClient(conn).SubscribeEvents(ctx, &pb.Empty{})
	if err != nil {
		r.t.Fatal(err)
	}
	if _, err := st.Header(); err != nil {
		r.t.Fatal(err)
	}
	return st, cancel
}

func (r *rig) subscribe(read bool) (*agent, pb.AetherDebug_SubscribeEventsClient) {
	ctx, cancel := context.WithCancel(r.ctx)
	r.t.Cleanup(cancel)
	st, err := r.cl.SubscribeEvents(ctx, &pb.Empty{})
	if err != nil {
		r.t.Fatal(err)
	}
	if _, err := st.Header(); err != nil { // the subscription is in place
		r.t.Fatal(err)
	}
	a := &agent{t: r.t, wake: make(chan struct{}, 1)}
	if read {
		go func() {
			for {
				e, err := st.Recv()
				if err != nil {
					return
				}
				a.mu.Lock()
				a.events = append(a.events, e)
				a.mu.Unlock()
				select {
				case a.wake <- struct{}{}:
				default:
				}
			}
		}()
	}
	return a, st
}

// mark is the number of events received so far.
func (a *agent) mark() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.events)
}

// waitFor waits for an event after from that satisfies ok.
func (a *agent) waitFor(from int, what string, ok func(*pb.DebugEvent) bool) *pb.DebugEvent {
	a.t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		a.mu.Lock()
		for i := from; i < len(a.events); i++ {
			if ok(a.events[i]) {
				e := a.events[i]
				a.mu.Unlock()
				return e
			}
		}
		from = len(a.events)
		a.mu.Unlock()
		select {
		case <-a.wake:
		case <-deadline:
			a.t.Fatalf("no %s event", what)
		}
	}
}

func code(err error) codes.Code { return status.Code(err) }

func wantCode(t *testing.T, what string, err error, c codes.Code) {
	t.Helper()
	if code(err) != c {
		t.Errorf("%s: got %v, want %v", what, err, c)
	}
}

func TestAetherQEMU(t *testing.T) {
	r := newRig(t, Config{EventBuffer: 64}, 10*time.Millisecond)
	cl, ctx := r.cl, r.ctx
	a, _ := r.subscribe(true)
	slow, cancelSlow := r.slowAgent() // an agent that never reads
	entry := r.sym.Entry()

	t.Run("status at entry", func(t *testing.T) {
		st, err := cl.GetStatus(ctx, &pb.Empty{})
		if err != nil || !st.Halted || st.Pc != entry || st.CoreStatus != "halted" || st.FunctionName != "Reset_Handler" {
			t.Fatalf("status = %v, %v (entry %#x)", st, err, entry)
		}
	})

	t.Run("python example", func(t *testing.T) {
		runPythonExample(t, r.addr)
		st, _ := cl.GetStatus(ctx, &pb.Empty{})
		if st.Halted {
			t.Errorf("after the example's Resume the core is %v", st)
		}
	})

	t.Run("rtt", func(t *testing.T) {
		a.waitFor(0, "rtt hello", func(e *pb.DebugEvent) bool {
			return e.GetRtt() != nil && e.GetRtt().Channel == 0 && strings.Contains(string(e.GetRtt().Data), "hello from rtt")
		})
		m := a.mark()
		w, err := cl.RttWrite(ctx, &pb.RttWriteRequest{Channel: 0, Data: []byte("ping")})
		if err != nil || w.Written != 4 {
			t.Fatalf("RttWrite = %v, %v", w, err)
		}
		a.waitFor(m, "echo", func(e *pb.DebugEvent) bool {
			return e.GetRtt() != nil && strings.Contains(string(e.GetRtt().Data), "echo: ping")
		})
		_, err = cl.RttWrite(ctx, &pb.RttWriteRequest{Channel: 5, Data: []byte("x")})
		wantCode(t, "RttWrite to channel 5", err, codes.InvalidArgument)
	})

	t.Run("plots", func(t *testing.T) {
		m := a.mark()
		a.waitFor(m, "rtt plot", func(e *pb.DebugEvent) bool { return e.GetPlot() != nil && e.GetPlot().Name == "wave" })
		if _, err := cl.WatchVariable(ctx, &pb.WatchVariableRequest{Name: "counter", PeriodMs: 20}); err != nil {
			t.Fatal(err)
		}
		if _, err := cl.WatchVariable(ctx, &pb.WatchVariableRequest{Name: "speed", PeriodMs: 20}); err != nil {
			t.Fatal(err)
		}
		var last float64 = -1
		for i := 0; i < 3; i++ {
			e := a.waitFor(m, "counter plot", func(e *pb.DebugEvent) bool {
				return e.GetPlot() != nil && e.GetPlot().Name == "counter" && e.GetPlot().Value > last
			})
			last = e.GetPlot().Value
			m = a.mark()
		}
		sp := a.waitFor(0, "speed plot", func(e *pb.DebugEvent) bool { return e.GetPlot() != nil && e.GetPlot().Name == "speed" })
		ve := a.waitFor(0, "counter variable", func(e *pb.DebugEvent) bool { return e.GetVariable() != nil && e.GetVariable().Name == "counter" })
		if v := ve.GetVariable(); v.Type != "volatile int32_t" && v.Type != "int32_t" || v.Address == 0 || v.Value == "" {
			t.Errorf("variable event %v", v)
		}
		if v := sp.GetPlot().Value; v < 1.5 || v > 100.25 || v*4 != float64(int(v*4)) {
			t.Errorf("speed = %v", v)
		}
		_, err := cl.WatchVariable(ctx, &pb.WatchVariableRequest{Name: "nope", PeriodMs: 20})
		wantCode(t, "watch unknown", err, codes.NotFound)
		_, err = cl.WatchVariable(ctx, &pb.WatchVariableRequest{Name: "pxReadyTasksLists", PeriodMs: 20})
		wantCode(t, "watch an array", err, codes.InvalidArgument)
		for _, n := range []string{"counter", "speed"} {
			if _, err := cl.WatchVariable(ctx, &pb.WatchVariableRequest{Name: n}); err != nil {
				t.Fatal(err)
			}
		}
	})

	t.Run("task switches and tasks", func(t *testing.T) {
		e := a.waitFor(0, "task switch", func(e *pb.DebugEvent) bool { return e.GetTaskSwitch() != nil })
		ts := e.GetTaskSwitch()
		if !(ts.From == "IDLE" && ts.To == "sensor" || ts.From == "sensor" && ts.To == "IDLE") {
			t.Errorf("switch %v", ts)
		}
		tasks, err := cl.GetTasks(ctx, &pb.Empty{}) // while running: a brief halt
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]*pb.TaskInfo{}
		for _, tk := range tasks.Tasks {
			got[tk.Name] = tk
		}
		want := map[string]struct {
			prio   uint32
			states string
			used   uint32
		}{
			"IDLE": {0, "ready running", 8 * 4}, "sensor": {2, "ready running", 20 * 4},
			"blinky": {1, "blocked", 12 * 4}, "console": {3, "suspended", 40 * 4},
		}
		if len(got) != len(want) {
			t.Fatalf("tasks %v", tasks)
		}
		for name, w := range want {
			tk := got[name]
			if tk == nil || tk.Priority != w.prio || !strings.Contains(w.states, tk.State) || tk.StackSize != 256 ||
				tk.StackUsage != w.used || tk.Handle == 0 || tk.TaskType != "freertos" {
				t.Errorf("task %s = %v, want %+v", name, tk, w)
			}
		}
	})

	t.Run("halt and registers", func(t *testing.T) {
		_, err := cl.ReadRegister(ctx, &pb.ReadRegisterRequest{RegisterNumber: 0})
		wantCode(t, "ReadRegister while running", err, codes.FailedPrecondition)
		_, err = cl.GetStack(ctx, &pb.Empty{})
		wantCode(t, "GetStack while running", err, codes.FailedPrecondition)
		_, err = cl.Step(ctx, &pb.Empty{})
		wantCode(t, "Step while running", err, codes.FailedPrecondition)
		m := a.mark()
		st, err := cl.Halt(ctx, &pb.Empty{})
		if err != nil || !st.Halted || st.Reason != "pause" {
			t.Fatalf("Halt = %v, %v", st, err)
		}
		a.waitFor(m, "halted", func(e *pb.DebugEvent) bool { return e.GetHalted() != nil && e.GetHalted().Pc == st.Pc })
		if st2, err := cl.Halt(ctx, &pb.Empty{}); err != nil || st2.Pc != st.Pc {
			t.Errorf("second Halt = %v, %v", st2, err)
		}
		regs, err := cl.ListRegisters(ctx, &pb.Empty{})
		if err != nil {
			t.Fatal(err)
		}
		num := map[string]uint32{}
		for _, rg := range regs.Registers {
			num[rg.Name] = rg.Number
		}
		pcNum, ok := num["pc"]
		if !ok || num["r0"] != 0 || num["sp"] != 13 {
			t.Fatalf("registers %v", regs)
		}
		pc, err := cl.ReadRegister(ctx, &pb.ReadRegisterRequest{RegisterNumber: pcNum})
		if err != nil || pc.Value != st.Pc {
			t.Errorf("pc = %v, %v; status says %#x", pc, err, st.Pc)
		}
		old, _ := cl.ReadRegister(ctx, &pb.ReadRegisterRequest{RegisterNumber: 7})
		if _, err := cl.WriteRegister(ctx, &pb.WriteRegisterRequest{RegisterNumber: 7, Value: 0x1234abcd}); err != nil {
			t.Fatal(err)
		}
		if v, err := cl.ReadRegister(ctx, &pb.ReadRegisterRequest{RegisterNumber: 7}); err != nil || v.Value != 0x1234abcd {
			t.Errorf("r7 = %v, %v", v, err)
		}
		a.waitFor(m, "register event", func(e *pb.DebugEvent) bool {
			return e.GetRegister() != nil && e.GetRegister().Register == 7 && e.GetRegister().Value == 0x1234abcd
		})
		cl.WriteRegister(ctx, &pb.WriteRegisterRequest{RegisterNumber: 7, Value: old.GetValue()})
		_, err = cl.ReadRegister(ctx, &pb.ReadRegisterRequest{RegisterNumber: 999})
		wantCode(t, "unknown register", err, codes.InvalidArgument)
		_, err = cl.WriteRegister(ctx, &pb.WriteRegisterRequest{RegisterNumber: 0, Value: 1 << 40})
		wantCode(t, "too wide value", err, codes.InvalidArgument)
	})

	t.Run("breakpoints, steps and stack", func(t *testing.T) {
		pcs, _, err := r.sym.LineToPCs("fw.c", srcLine(t, "add3"))
		if err != nil {
			t.Fatal(err)
		}
		bp := pcs[0]
		m := a.mark()
		if _, err := cl.SetBreakpoint(ctx, &pb.BreakpointRequest{Address: bp | 1}); err != nil { // a Thumb address
			t.Fatal(err)
		}
		a.waitFor(m, "breakpoint event", func(e *pb.DebugEvent) bool {
			return e.GetBreakpoint() != nil && e.GetBreakpoint().Address == bp && e.GetBreakpoint().Enabled
		})
		if l, _ := cl.ListBreakpoints(ctx, &pb.Empty{}); len(l.GetAddresses()) != 1 || l.Addresses[0] != bp {
			t.Errorf("ListBreakpoints = %v", l)
		}
		m = a.mark()
		if _, err := cl.Resume(ctx, &pb.Empty{}); err != nil {
			t.Fatal(err)
		}
		a.waitFor(m, "breakpoint halt", func(e *pb.DebugEvent) bool {
			return e.GetHalted() != nil && e.GetHalted().Pc == bp && e.GetHalted().Reason == "breakpoint"
		})
		st, _ := cl.GetStatus(ctx, &pb.Empty{})
		if !st.Halted || st.Pc != bp || st.FunctionName != "add3" || st.Line != uint32(srcLine(t, "add3")) {
			t.Errorf("status at breakpoint %v", st)
		}
		stack, err := cl.GetStack(ctx, &pb.Empty{})
		if err != nil || len(stack.Frames) < 2 {
			t.Fatalf("stack = %v, %v", stack, err)
		}
		f := stack.Frames
		if f[0].FunctionName != "add3" || f[0].Pc != bp || f[1].FunctionName != "main" || f[1].Line != uint32(srcLine(t, "main_loop")) ||
			!strings.HasSuffix(f[0].File, "fw.c") {
			t.Errorf("stack %v", f)
		}
		s1, err := cl.Step(ctx, &pb.Empty{})
		if err != nil || !s1.Halted || s1.Pc == bp || s1.Reason != "step" {
			t.Errorf("Step = %v, %v", s1, err)
		}
		s2, err := cl.StepOver(ctx, &pb.Empty{})
		if err != nil || s2.FunctionName != "add3" || s2.Line <= uint32(srcLine(t, "add3")) {
			t.Errorf("StepOver = %v, %v", s2, err)
		}
		s3, err := cl.StepOut(ctx, &pb.Empty{})
		if err != nil || s3.FunctionName != "main" {
			t.Errorf("StepOut = %v, %v", s3, err)
		}
		if _, err := cl.ClearBreakpoint(ctx, &pb.BreakpointRequest{Address: bp}); err != nil {
			t.Fatal(err)
		}
		_, err = cl.ClearBreakpoint(ctx, &pb.BreakpointRequest{Address: bp})
		wantCode(t, "clear a cleared breakpoint", err, codes.NotFound)
		// StepInto enters add3 from the main loop (and libgcc's float helpers on the way)
		for i := 0; i < 40; i++ {
			s, err := cl.StepInto(ctx, &pb.Empty{})
			if err != nil {
				t.Fatal(err)
			}
			if s.FunctionName == "add3" {
				break
			}
			if s.FunctionName != "main" {
				cl.StepOut(ctx, &pb.Empty{})
			}
			if i == 39 {
				t.Errorf("StepInto never entered add3: %v", s)
			}
		}
	})

	t.Run("memory", func(t *testing.T) {
		addr, _, ok := r.sym.Symbol("counter")
		if !ok {
			t.Fatal("no counter")
		}
		if _, err := cl.WriteMemory(ctx, &pb.WriteMemoryRequest{Address: addr, Data: []byte{0x44, 0x33, 0x22, 0x11}}); err != nil {
			t.Fatal(err)
		}
		mr, err := cl.ReadMemory(ctx, &pb.ReadMemoryRequest{Address: addr, Length: 4})
		if err != nil || string(mr.Data) != "\x44\x33\x22\x11" {
			t.Fatalf("ReadMemory = %v, %v", mr, err)
		}
		big, err := cl.ReadMemory(ctx, &pb.ReadMemoryRequest{Address: 0x20000000, Length: 64 << 10})
		if err != nil || len(big.Data) != 64<<10 {
			t.Fatalf("64 KiB read: %d bytes, %v", len(big.GetData()), err)
		}
		_, err = cl.ReadMemory(ctx, &pb.ReadMemoryRequest{Address: addr, Length: 0})
		wantCode(t, "zero length", err, codes.InvalidArgument)
		_, err = cl.ReadMemory(ctx, &pb.ReadMemoryRequest{Address: addr, Length: MaxTransfer + 1})
		wantCode(t, "over-limit length", err, codes.InvalidArgument)
		_, err = cl.WriteMemory(ctx, &pb.WriteMemoryRequest{Address: addr})
		wantCode(t, "empty write", err, codes.InvalidArgument)
		_, err = cl.ReadMemory(ctx, &pb.ReadMemoryRequest{Address: 0x30000000, Length: 16}) // nothing there
		wantCode(t, "unmapped memory", err, codes.OutOfRange)
		// while running, through a brief halt (rx_total is written by the firmware only
		// when RTT data arrives)
		if _, err := cl.Resume(ctx, &pb.Empty{}); err != nil {
			t.Fatal(err)
		}
		rx, _, _ := r.sym.Symbol("rx_total")
		if _, err := cl.WriteMemory(ctx, &pb.WriteMemoryRequest{Address: rx, Data: []byte{1, 2, 3, 4}}); err != nil {
			t.Fatal(err)
		}
		mr, err = cl.ReadMemory(ctx, &pb.ReadMemoryRequest{Address: rx, Length: 4})
		if err != nil || string(mr.Data) != "\x01\x02\x03\x04" {
			t.Fatalf("read while running = %v, %v", mr, err)
		}
		if st, _ := cl.GetStatus(ctx, &pb.Empty{}); st.Halted {
			t.Errorf("a brief halt showed: %v", st)
		}
	})

	t.Run("peripherals", func(t *testing.T) {
		did0, err := cl.ReadPeripheral(ctx, &pb.PeripheralRequest{Peripheral: "SYSCTL", Register: "ID.DID0"})
		if err != nil {
			t.Fatal(err)
		}
		// QEMU's lm3s6965evb reports DID0 0x10010002: class Fury, revision A2
		if did0.Value != 0x10010002 || did0.Address != 0x400FE000 {
			t.Errorf("DID0 = %#x at %#x", did0.Value, did0.Address)
		}
		fields := map[string]*pb.FieldValue{}
		for _, f := range did0.Fields {
			fields[f.Name] = f
		}
		if fields["CLASS"].GetEnumName() != "FURY" || fields["MINOR"].GetValue() != 2 || fields["VER"].GetValue() != 1 {
			t.Errorf("DID0 fields %v", did0.Fields)
		}
		fr, err := cl.ReadPeripheral(ctx, &pb.PeripheralRequest{Peripheral: "uart1", Register: "FR"})
		if err != nil || fr.Value&0x90 != 0x90 {
			t.Errorf("UART1.FR = %v, %v", fr, err)
		}
		id, err := cl.ReadPeripheral(ctx, &pb.PeripheralRequest{Peripheral: "UART0", Register: "PeriphID0"})
		if err != nil || id.Value != 0x11 {
			t.Errorf("UART0.PeriphID0 = %v, %v", id, err)
		}
		// enable UART1 (read-modify-write keeps TXE and RXE), then send a character
		ctl, err := cl.WritePeripheral(ctx, &pb.PeripheralWriteRequest{Peripheral: "UART1", Register: "CTL", Field: "UARTEN", Value: 1})
		if err != nil || ctl.Value != 0x301 {
			t.Fatalf("CTL = %v, %v", ctl, err)
		}
		for _, c := range "Hi!" {
			if _, err := cl.WritePeripheral(ctx, &pb.PeripheralWriteRequest{Peripheral: "UART1", Register: "DR", Field: "DATA", Value: uint64(c)}); err != nil {
				t.Fatal(err)
			}
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			b, _ := os.ReadFile(r.uart1)
			if string(b) == "Hi!" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("UART1 output %q", b)
			}
			time.Sleep(10 * time.Millisecond)
		}
		_, err = cl.ReadPeripheral(ctx, &pb.PeripheralRequest{Peripheral: "UART9", Register: "DR"})
		wantCode(t, "unknown peripheral", err, codes.NotFound)
		_, err = cl.ReadPeripheral(ctx, &pb.PeripheralRequest{Peripheral: "UART0", Register: "NOPE"})
		wantCode(t, "unknown register", err, codes.NotFound)
		_, err = cl.WritePeripheral(ctx, &pb.PeripheralWriteRequest{Peripheral: "UART0", Register: "CTL", Field: "NOPE"})
		wantCode(t, "unknown field", err, codes.NotFound)
		_, err = cl.WritePeripheral(ctx, &pb.PeripheralWriteRequest{Peripheral: "UART0", Register: "FR", Field: "BUSY", Value: 1})
		wantCode(t, "read-only register", err, codes.InvalidArgument)
		_, err = cl.WritePeripheral(ctx, &pb.PeripheralWriteRequest{Peripheral: "UART0", Register: "LCRH", Field: "WLEN", Value: 4})
		wantCode(t, "too wide field value", err, codes.InvalidArgument)
		l, err := cl.ListPeripherals(ctx, &pb.ListPeripheralsRequest{})
		if err != nil || len(l.Peripherals) != 5 {
			t.Errorf("ListPeripherals = %v, %v", l, err)
		}
		l, err = cl.ListPeripherals(ctx, &pb.ListPeripheralsRequest{Peripheral: "UART1"})
		if err != nil || len(l.Peripherals) != 1 || len(l.Peripherals[0].Registers) < 10 || l.Peripherals[0].BaseAddress != 0x4000D000 {
			t.Errorf("ListPeripherals(UART1) = %v, %v", l, err)
		}
	})

	t.Run("slow agent", func(t *testing.T) {
		// flood RTT: the reading agent keeps up, the one that never reads loses events
		// and is told how many; the target keeps running
		spam, _, _ := r.sym.Symbol("spam")
		m := a.mark()
		if _, err := cl.WriteMemory(ctx, &pb.WriteMemoryRequest{Address: spam, Data: []byte{1, 0, 0, 0}}); err != nil {
			t.Fatal(err)
		}
		n := 0
		a.waitFor(m, "many rtt events", func(e *pb.DebugEvent) bool {
			if e.GetRtt() != nil && strings.Contains(string(e.GetRtt().Data), "spam") {
				n++
			}
			return n > 400
		})
		cl.WriteMemory(ctx, &pb.WriteMemoryRequest{Address: spam, Data: []byte{0, 0, 0, 0}})
		st, _ := cl.GetStatus(ctx, &pb.Empty{})
		if st.Halted {
			t.Errorf("the target stopped: %v", st)
		}
		lagged := false
		stop := time.AfterFunc(callTimeout, cancelSlow) // never block on Recv
		defer stop.Stop()
		for i := 0; i < 100000 && !lagged; i++ {
			e, err := slow.Recv()
			if err != nil {
				t.Fatal(err)
			}
			if l := e.GetLagged(); l != nil {
				lagged = l.Missed > 0
			}
		}
		if !lagged {
			t.Error("the slow agent was not told what it missed")
		}
	})

	t.Run("deadline", func(t *testing.T) {
		if _, err := cl.Halt(ctx, &pb.Empty{}); err != nil {
			t.Fatal(err)
		}
		// the firmware enters a function that never returns: StepOut cannot finish
		hang, _, _ := r.sym.Symbol("hang")
		cl.WriteMemory(ctx, &pb.WriteMemoryRequest{Address: hang, Data: []byte{1}})
		deadline := time.Now().Add(10 * time.Second)
		for {
			st, err := cl.Halt(ctx, &pb.Empty{})
			if err != nil {
				t.Fatal(err)
			}
			if st.FunctionName == "wait_forever" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("not in wait_forever: %v", st)
			}
			start := time.Now()
			if _, err := cl.Resume(ctx, &pb.Empty{}); err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d > DefaultSyncTimeout { // it waits for no halt
				t.Errorf("Resume took %v", d)
			}
		}
		start := time.Now()
		_, err := cl.StepOut(ctx, &pb.Empty{})
		wantCode(t, "StepOut of a function that never returns", err, codes.DeadlineExceeded)
		if d := time.Since(start); d < DefaultSyncTimeout || d > DefaultSyncTimeout+5*time.Second {
			t.Errorf("answered after %v", d)
		}
		if st, err := cl.Halt(ctx, &pb.Empty{}); err != nil || !st.Halted {
			t.Errorf("Halt after the deadline = %v, %v", st, err)
		}
	})

	t.Run("reset", func(t *testing.T) {
		if _, err := cl.Resume(ctx, &pb.Empty{}); err != nil {
			t.Fatal(err)
		}
		m := a.mark()
		st, err := cl.Reset(ctx, &pb.Empty{})
		if err != nil || !st.Halted || st.Pc != entry || st.Reason != "reset" {
			t.Fatalf("Reset = %v, %v (entry %#x)", st, err, entry)
		}
		a.waitFor(m, "reset halt", func(e *pb.DebugEvent) bool { return e.GetHalted() != nil && e.GetHalted().Reason == "reset" })
		// the firmware starts over: its RTT greeting comes again
		m = a.mark()
		cl.Resume(ctx, &pb.Empty{})
		a.waitFor(m, "rtt hello after reset", func(e *pb.DebugEvent) bool {
			return e.GetRtt() != nil && strings.Contains(string(e.GetRtt().Data), "hello from rtt")
		})
	})

	t.Run("authentication", func(t *testing.T) {
		g := grpc.NewServer((&Server{cfg: Config{Token: "s3cret"}}).ServerOptions()...)
		r.srv.Register(g)
		l, _ := net.Listen("tcp", "127.0.0.1:0")
		go g.Serve(l)
		defer g.Stop()
		conn, _ := grpc.NewClient(l.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()), rpcTimeout())
		defer conn.Close()
		c2 := pb.NewAetherDebugClient(conn)
		_, err := c2.GetStatus(ctx, &pb.Empty{})
		wantCode(t, "no token", err, codes.Unauthenticated)
		bad := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer nope")
		_, err = c2.GetStatus(bad, &pb.Empty{})
		wantCode(t, "bad token", err, codes.Unauthenticated)
		st, err := c2.SubscribeEvents(bad, &pb.Empty{})
		if err == nil {
			_, err = st.Recv()
		}
		wantCode(t, "stream with a bad token", err, codes.Unauthenticated)
		good := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer s3cret")
		if _, err := c2.GetStatus(good, &pb.Empty{}); err != nil {
			t.Errorf("good token: %v", err)
		}
	})

	t.Run("stub gone", func(t *testing.T) {
		r.stub.Stop()
		a.waitFor(0, "ended", func(e *pb.DebugEvent) bool { return e.GetEnded() != nil })
		_, err := cl.Halt(ctx, &pb.Empty{})
		wantCode(t, "Halt", err, codes.Unavailable)
		_, err = cl.ReadMemory(ctx, &pb.ReadMemoryRequest{Address: 0x20000000, Length: 4})
		wantCode(t, "ReadMemory", err, codes.Unavailable)
		if st, _ := cl.GetStatus(ctx, &pb.Empty{}); st.Halted || st.CoreStatus == "running" {
			t.Errorf("status %v", st)
		}
	})
	_ = errors.New
}
