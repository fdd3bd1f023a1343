package mcu

import (
	"bytes"
	"debug/elf"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/polydbg/polydbg/backend/gdbremote"
	"github.com/polydbg/polydbg/backend/mcu/rtt"
	"github.com/polydbg/polydbg/engine"
)

// rttState is the host side of RTT: the located control block and the line buffers of
// the plot parser.
type rttState struct {
	s        *Service
	mu       sync.Mutex
	cb       *rtt.ControlBlock
	addr     uint64 // known address (option or symbol), 0 to scan
	lastScan time.Time
	lines    map[int][]byte
}

func newRTTState(s *Service) *rttState {
	r := &rttState{s: s, addr: s.opts.RTTAddress, lines: map[int][]byte{}}
	if r.addr == 0 {
		if a, _, ok := s.t.Symbols().Symbol("_SEGGER_RTT"); ok {
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
	sym := r.s.t.Symbols()
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
				r.cb, r.addr = cb, a
				return cb
			}
		}
	}
	return nil
}

// scanRanges are where to look for the control block: the configured range, else the
// ELF file's writable segments (its RAM).
func (r *rttState) scanRanges() [][2]uint64 {
	if o := r.s.opts; o.RTTScanSize > 0 {
		return [][2]uint64{{o.RTTScanStart, o.RTTScanSize}}
	}
	var out [][2]uint64
	sym := r.s.t.Symbols()
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
		r.s.log.Debug("mcu: rtt read", "err", err)
		r.cb = nil // it moved or was re-initialised: find it again
		return
	}
	for ch := range len(cb.Up) {
		if b := data[ch]; len(b) > 0 {
			r.s.publish(engine.Telemetry{Kind: engine.TelemetryRTT, Channel: ch, Data: b})
			r.plots(ch, b)
		}
	}
}

const maxLine = 256

// plots parses Teleplot lines, ">name:value" or ">name:timestamp_ms:value", of any up
// channel into plot telemetry.
func (r *rttState) plots(ch int, b []byte) {
	buf := append(r.lines[ch], b...)
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			break
		}
		line := strings.TrimSpace(string(buf[:i]))
		buf = buf[i+1:]
		if name, v, ok := ParsePlot(line); ok {
			r.s.publish(engine.Telemetry{Kind: engine.TelemetryPlot, Name: name, Value: v})
		}
	}
	if len(buf) > maxLine {
		buf = nil
	}
	r.lines[ch] = append([]byte(nil), buf...)
}

// ParsePlot parses one Teleplot line, ">name:value" or ">name:timestamp_ms:value". A
// line that holds a second ">" begins with the cut-off start of an earlier one (a firmware
// whose full RTT buffer trimmed a write: ">wa>wave:93"): it is read from its last ">".
func ParsePlot(line string) (string, float64, bool) {
	if !strings.HasPrefix(line, ">") {
		return "", 0, false
	}
	rest := line[strings.LastIndexByte(line, '>')+1:]
	parts := strings.Split(rest, ":")
	name := strings.TrimSpace(parts[0])
	if len(parts) < 2 || len(parts) > 3 || name == "" {
		return "", 0, false
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(parts[len(parts)-1]), 64)
	if err != nil {
		return "", 0, false
	}
	return name, v, true
}

// WriteRTT implements engine.RTTChannels: it writes into an RTT down-buffer and returns
// how much fitted.
func (s *Service) WriteRTT(channel int, data []byte) (int, error) {
	var n int
	var found bool
	err := s.t.Access(func(m gdbremote.Access) error {
		r := s.rtt
		r.mu.Lock()
		defer r.mu.Unlock()
		r.lastScan = time.Time{}
		cb := r.locate(m)
		if cb == nil {
			return nil
		}
		found = true
		if channel < 0 || channel >= len(cb.Down) {
			return fmt.Errorf("%w: no RTT down channel %d (the target has %d)", engine.ErrInvalid, channel, len(cb.Down))
		}
		var err error
		n, err = cb.Write(m, channel, data)
		return err
	})
	if err != nil {
		return 0, gdbremote.EngineError(err)
	}
	if !found {
		return 0, fmt.Errorf("%w: no RTT control block found in the target (yet)", engine.ErrUnsupported)
	}
	return n, nil
}
