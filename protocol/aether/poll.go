package aether

import (
	"bytes"
	"context"
	"debug/dwarf"
	"debug/elf"
	"errors"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/polydbg/polydbg/backend/elfsym"
	"github.com/polydbg/polydbg/backend/gdbremote"
	"github.com/polydbg/polydbg/backend/mcu/rtt"
	pb "github.com/polydbg/polydbg/protocol/aether/aetherpb"
)

// rttState is the host side of RTT: the located control block and the line buffers of
// the plot parser.
type rttState struct {
	s        *Server
	mu       sync.Mutex
	cb       *rtt.ControlBlock
	addr     uint64 // known address (config or symbol), 0 to scan
	lastScan time.Time
	lines    map[int][]byte
}

func newRTTState(s *Server) *rttState {
	r := &rttState{s: s, addr: s.cfg.RTTAddress, lines: map[int][]byte{}}
	if r.addr == 0 {
		if a, _, ok := s.tgt.Symbols().Symbol("_SEGGER_RTT"); ok {
			r.addr = a
		}
	}
	return r
}

// reset forgets the control block (the firmware sets it up again after a reset).
func (r *rttState) reset() {
	r.mu.Lock()
	r.cb = nil
	r.lines = map[int][]byte{}
	r.mu.Unlock()
}

// worth says whether a drain while the core runs can find anything: the control block is
// known, or its address is, or a scan for it is due (once a second). Without it a
// firmware that has no RTT is not halted every period for nothing.
func (r *rttState) worth() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cb != nil || r.addr != 0 || time.Since(r.lastScan) >= time.Second
}

// locate finds the control block; r.mu held.
func (r *rttState) locate(m gdbremote.Access) *rtt.ControlBlock {
	if r.cb != nil {
		return r.cb
	}
	sym := r.s.tgt.Symbols()
	ptr, order := sym.Arch.PtrSize, sym.Arch.ByteOrder
	if r.addr != 0 {
		if cb, err := rtt.Open(m, r.addr, ptr, order); err == nil {
			r.cb = cb
		}
		return r.cb
	}
	if time.Since(r.lastScan) < time.Second {
		return nil
	}
	r.lastScan = time.Now()
	for _, rg := range r.scanRanges() {
		if a, err := rtt.Find(m, rg[0], int(rg[1])); err == nil {
			if cb, err := rtt.Open(m, a, ptr, order); err == nil {
				r.cb = cb
				r.addr = a
				return cb
			}
		}
	}
	return nil
}

// scanRanges are where to look for the control block: the configured range, else the
// ELF file's writable segments (its RAM).
func (r *rttState) scanRanges() [][2]uint64 {
	if r.s.cfg.RTTScanSize > 0 {
		return [][2]uint64{{r.s.cfg.RTTScanStart, r.s.cfg.RTTScanSize}}
	}
	var out [][2]uint64
	sym := r.s.tgt.Symbols()
	for _, p := range sym.ELF.Progs {
		if p.Type == elf.PT_LOAD && p.Flags&elf.PF_W != 0 && p.Memsz > 0 && p.Memsz < 16<<20 {
			out = append(out, [2]uint64{p.Vaddr + sym.Bias, p.Memsz})
		}
	}
	return out
}

// drain reads the up-buffers and publishes their data, and plot lines found in it.
func (r *rttState) drain(m gdbremote.Access) {
	r.mu.Lock()
	defer r.mu.Unlock()
	cb := r.locate(m)
	if cb == nil {
		return
	}
	data, err := cb.ReadAll(m)
	if err != nil {
		r.s.log.Debug("aether: rtt read", "err", err)
		r.cb = nil // it moved or was re-initialised: find it again
		return
	}
	for ch := range len(cb.Up) {
		b := data[ch]
		if len(b) == 0 {
			continue
		}
		r.s.publish(&pb.DebugEvent{Event: &pb.DebugEvent_Rtt{Rtt: &pb.RttEvent{Channel: uint32(ch), Data: b}}})
		r.plots(ch, b)
	}
}

const maxLine = 256

// plots parses Teleplot lines, ">name:value" or ">name:timestamp_ms:value", of any up
// channel into PlotEvents.
func (r *rttState) plots(ch int, b []byte) {
	buf := append(r.lines[ch], b...)
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			break
		}
		line := strings.TrimSpace(string(buf[:i]))
		buf = buf[i+1:]
		if name, v, ok := parsePlot(line); ok {
			r.s.publish(&pb.DebugEvent{Event: &pb.DebugEvent_Plot{Plot: &pb.PlotEvent{Name: name, Timestamp: r.s.now(), Value: v}}})
		}
	}
	if len(buf) > maxLine {
		buf = nil
	}
	r.lines[ch] = append([]byte(nil), buf...)
}

func parsePlot(line string) (string, float64, bool) {
	rest, ok := strings.CutPrefix(line, ">")
	if !ok {
		return "", 0, false
	}
	parts := strings.Split(rest, ":")
	if len(parts) < 2 || len(parts) > 3 || parts[0] == "" {
		return "", 0, false
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(parts[len(parts)-1]), 64)
	if err != nil {
		return "", 0, false
	}
	return strings.TrimSpace(parts[0]), v, true
}

// RttWrite writes into an RTT down-buffer; it returns how much fitted.
func (s *Server) RttWrite(_ context.Context, req *pb.RttWriteRequest) (*pb.RttWriteResponse, error) {
	if len(req.Data) > MaxTransfer {
		return nil, status.Errorf(codes.InvalidArgument, "%d bytes is over the limit of %d", len(req.Data), MaxTransfer)
	}
	if err := s.checkEnded(); err != nil {
		return nil, err
	}
	var n int
	var found bool
	err := s.tgt.Access(func(m gdbremote.Access) error {
		r := s.rtt
		r.mu.Lock()
		defer r.mu.Unlock()
		r.lastScan = time.Time{}
		cb := r.locate(m)
		if cb == nil {
			return nil
		}
		found = true
		if int(req.Channel) >= len(cb.Down) {
			return status.Errorf(codes.InvalidArgument, "no RTT down channel %d (the target has %d)", req.Channel, len(cb.Down))
		}
		var err error
		n, err = cb.Write(m, int(req.Channel), req.Data)
		return err
	})
	if err != nil {
		return nil, s.grpcErr(err)
	}
	if !found {
		return nil, status.Error(codes.FailedPrecondition, "no RTT control block found in the target (yet)")
	}
	return &pb.RttWriteResponse{Written: uint32(n)}, nil
}

// watcher samples variables periodically.
type watcher struct {
	mu sync.Mutex
	vs map[string]*watched
}

type watched struct {
	name   string
	addr   uint64
	size   int
	kind   byte // 'i' signed, 'u' unsigned, 'f' float
	typ    string
	period time.Duration
	next   time.Time
}

func newWatcher() *watcher { return &watcher{vs: map[string]*watched{}} }

// WatchVariable samples a global integer or float variable every period_ms as
// PlotEvents; period_ms 0 stops it.
func (s *Server) WatchVariable(_ context.Context, req *pb.WatchVariableRequest) (*pb.Empty, error) {
	if req.PeriodMs == 0 {
		s.watch.mu.Lock()
		_, ok := s.watch.vs[req.Name]
		delete(s.watch.vs, req.Name)
		s.watch.mu.Unlock()
		if !ok {
			return nil, status.Errorf(codes.NotFound, "%q is not watched", req.Name)
		}
		return empty, nil
	}
	if req.PeriodMs < 1 || req.PeriodMs > 3600_000 {
		return nil, status.Errorf(codes.InvalidArgument, "period %d ms is out of range", req.PeriodMs)
	}
	sym := s.tgt.Symbols()
	v, ok := sym.Global(req.Name)
	if !ok {
		return nil, status.Errorf(codes.NotFound, "no global variable %q in the ELF file", req.Name)
	}
	w := &watched{name: req.Name, size: v.Size(), typ: v.TypeName(), period: time.Duration(req.PeriodMs) * time.Millisecond}
	switch t := elfsym.Underlying(v.Type).(type) {
	case *dwarf.FloatType:
		if w.size != 4 && w.size != 8 {
			return nil, status.Errorf(codes.InvalidArgument, "%s is a %d-byte float", req.Name, w.size)
		}
		w.kind = 'f'
	default:
		isInt, signed := elfsym.IntKind(t)
		if !isInt || w.size < 1 || w.size > 8 {
			return nil, status.Errorf(codes.InvalidArgument, "%s is a %s, not an integer or a float", req.Name, v.TypeName())
		}
		w.kind = 'u'
		if signed {
			w.kind = 'i'
		}
	}
	loc, err := sym.Locate(v, nil, nil)
	if err != nil || loc.Kind != elfsym.LocMemory {
		return nil, status.Errorf(codes.InvalidArgument, "%s has no static address", req.Name)
	}
	w.addr = loc.Addr
	s.watch.mu.Lock()
	s.watch.vs[req.Name] = w
	s.watch.mu.Unlock()
	select {
	case s.kick <- struct{}{}:
	default:
	}
	return empty, nil
}

// due returns the watches to sample now and the time of the next one.
func (w *watcher) due(now time.Time) ([]watched, time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []watched
	next := time.Time{}
	for _, v := range w.vs {
		if !now.Before(v.next) {
			out = append(out, *v)
			v.next = now.Add(v.period)
		}
		if next.IsZero() || v.next.Before(next) {
			next = v.next
		}
	}
	return out, next
}

// sample reads a watched variable and publishes its value as a PlotEvent, and as a
// VariableEvent when it differs from the last sample (last holds them by name).
func (s *Server) sample(m gdbremote.Access, w watched, last map[string]string) {
	b, err := m.ReadMemory(w.addr, w.size)
	if err != nil || len(b) < w.size {
		return
	}
	o := s.order()
	u := gdbremote.Uint(b, o)
	var v float64
	var text string
	switch w.kind {
	case 'f':
		if w.size == 4 {
			f := math.Float32frombits(uint32(u))
			v, text = float64(f), strconv.FormatFloat(float64(f), 'g', -1, 32)
		} else {
			v = math.Float64frombits(u)
			text = strconv.FormatFloat(v, 'g', -1, 64)
		}
	case 'i':
		shift := 64 - 8*w.size
		i := int64(u<<shift) >> shift
		v, text = float64(i), strconv.FormatInt(i, 10)
	default:
		v, text = float64(u), strconv.FormatUint(u, 10)
	}
	s.publish(&pb.DebugEvent{Event: &pb.DebugEvent_Plot{Plot: &pb.PlotEvent{Name: w.name, Timestamp: s.now(), Value: v}}})
	if prev, ok := last[w.name]; !ok || prev != text {
		last[w.name] = text
		s.publish(&pb.DebugEvent{Event: &pb.DebugEvent_Variable{Variable: &pb.VariableEvent{Name: w.name, Value: text, Type: w.typ, Address: w.addr}}})
	}
}

// poll is the background loop: while the core runs it drains RTT every PollPeriod and
// samples watched variables when due, in one brief halt for both; after each halt it
// drains RTT once more and reports the task list and task switches.
func (s *Server) poll() {
	defer s.wg.Done()
	period := s.cfg.PollPeriod
	rttOn := period > 0
	if period <= 0 {
		period = DefaultPollPeriod
	}
	ticker := time.NewTicker(period)
	defer ticker.Stop()
	var lastTCB uint64
	names := map[uint64]string{}
	lastVal := map[string]string{}
	for {
		afterHalt := false
		select {
		case <-s.ctx.Done():
			return
		case <-ticker.C:
		case <-s.kick:
			afterHalt = true
		}
		if s.tgt.Ended() {
			return
		}
		now := time.Now()
		ws, _ := s.watch.due(now)
		running := s.tgt.Running()
		wantRTT := rttOn && (afterHalt || running && (s.rtt.worth() || s.rtos != nil))
		if !wantRTT && len(ws) == 0 && !afterHalt {
			continue
		}
		var tasks *pb.TasksResponse
		var switched *pb.TaskSwitchEvent
		err := s.tgt.Access(func(m gdbremote.Access) error {
			if wantRTT {
				s.rtt.drain(m)
			}
			for _, w := range ws {
				s.sample(m, w, lastVal)
			}
			if s.rtos != nil && (afterHalt || wantRTT) {
				cur, err := s.rtos.Current(m)
				if err == nil && cur != lastTCB && cur != 0 {
					if lastTCB != 0 {
						switched = &pb.TaskSwitchEvent{From: s.taskName(m, names, lastTCB), To: s.taskName(m, names, cur), Timestamp: s.now()}
					}
					lastTCB = cur
				}
				if afterHalt && s.hub.count() > 0 {
					tasks, _ = s.readTasks(m)
				}
			}
			return nil
		})
		if err != nil && !errors.Is(err, context.Canceled) {
			s.log.Debug("aether: poll", "err", err)
		}
		if switched != nil {
			s.publish(&pb.DebugEvent{Event: &pb.DebugEvent_TaskSwitch{TaskSwitch: switched}})
		}
		if tasks != nil {
			s.publish(&pb.DebugEvent{Event: &pb.DebugEvent_Tasks{Tasks: tasks}})
		}
	}
}

func (s *Server) taskName(m gdbremote.Access, cache map[uint64]string, tcb uint64) string {
	if n, ok := cache[tcb]; ok {
		return n
	}
	n := strconv.FormatUint(tcb, 16)
	if ts, err := s.rtos.Tasks(m); err == nil {
		for _, t := range ts {
			cache[t.Handle] = t.Name
			if t.Handle == tcb {
				n = t.Name
			}
		}
	}
	return n
}
