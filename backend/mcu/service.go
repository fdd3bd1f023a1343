// Package mcu is the microcontroller service beside a session on a target behind a GDB
// stub: while the core runs it drains SEGGER RTT buffers (and parses Teleplot lines in
// them), samples global variables and notices FreeRTOS task switches, all in brief halts
// the session never sees; after each halt it drains RTT once more and reports the task
// list. It reads and writes peripheral registers by their SVD names, decoded. Front ends
// reach it through launch.Debuggee.MCU and the engine's capability interfaces
// (engine.TelemetrySource, RTTChannels, Sampler, Peripherals, ThreadLister), so that
// every front end gets the same service and none rebuilds it.
package mcu

import (
	"context"
	"debug/elf"
	"errors"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/polydbg/polydbg/backend/gdbremote"
	"github.com/polydbg/polydbg/backend/mcu/rtos"
	"github.com/polydbg/polydbg/backend/mcu/svd"
	"github.com/polydbg/polydbg/engine"
)

// DefaultPollPeriod is how often RTT is drained while the core runs.
const DefaultPollPeriod = 20 * time.Millisecond

// Options configure a Service. The zero value works.
type Options struct {
	// PollPeriod is how often RTT buffers are drained while the core runs, with a brief
	// halt each time on stubs that cannot read running memory (0: DefaultPollPeriod;
	// negative disables RTT polling).
	PollPeriod time.Duration
	// RTTAddress is where the RTT control block is (0: the symbol _SEGGER_RTT, else a scan
	// of RTTScanStart..+RTTScanSize, else of the ELF file's writable segments).
	RTTAddress   uint64
	RTTScanStart uint64
	RTTScanSize  uint64
	Logger       *slog.Logger
}

// Service is the microcontroller service of one session.
type Service struct {
	sess     *engine.Session
	t        *gdbremote.Target
	dev      *svd.Device
	opts     Options
	log      *slog.Logger
	t0       time.Time
	rtosOnce sync.Once
	rtos     *rtos.FreeRTOS // the FreeRTOS kernel, or nil (see kernel)
	rtt      *rttState
	kick     chan struct{} // a new sample to take
	vars     *sampler

	mu     sync.Mutex
	fns    map[int]func(engine.Telemetry)
	nextFn int
}

var (
	_ engine.TelemetrySource = (*Service)(nil)
	_ engine.RTTChannels     = (*Service)(nil)
	_ engine.Sampler         = (*Service)(nil)
	_ engine.Peripherals     = (*Service)(nil)
	_ engine.ThreadLister    = (*Service)(nil)
)

// New starts the service of sess, whose target is t, with the device description dev
// (nil without one). It ends with the session.
func New(sess *engine.Session, t *gdbremote.Target, dev *svd.Device, opts Options) *Service {
	if opts.PollPeriod == 0 {
		opts.PollPeriod = DefaultPollPeriod
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	s := &Service{sess: sess, t: t, dev: dev, opts: opts, log: opts.Logger, t0: time.Now(),
		kick: make(chan struct{}, 1), vars: newSampler(), fns: map[int]func(engine.Telemetry){}}
	s.rtt = newRTTState(s)
	go s.loop(sess.Subscribe())
	return s
}

// Watch implements engine.TelemetrySource.
func (s *Service) Watch(fn func(engine.Telemetry)) (stop func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	id := s.nextFn
	s.nextFn++
	s.fns[id] = fn
	return func() {
		s.mu.Lock()
		delete(s.fns, id)
		s.mu.Unlock()
	}
}

func (s *Service) watched() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.fns) > 0
}

func (s *Service) publish(e engine.Telemetry) {
	e.Time = time.Since(s.t0).Seconds()
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, fn := range s.fns {
		fn(e)
	}
}

// kernel is the program's FreeRTOS kernel, or nil; looked up when first needed, so that
// a debuggee whose front end never asks does not pay for reading its globals.
func (s *Service) kernel() *rtos.FreeRTOS {
	s.rtosOnce.Do(func() {
		if r, err := rtos.Open(s.t.Symbols()); err == nil {
			s.rtos = r
		}
	})
	return s.rtos
}

func (s *Service) isARM() bool { return s.t.Symbols().Arch.Machine == elf.EM_ARM }

// loop polls while the core runs: RTT every PollPeriod and the samples when due, in one
// brief halt for both; after each halt it drains RTT once more and reports the task list
// and task switches. It does nothing while nobody Watches, so a debuggee whose front end
// does not use the service is never halted for it. It ends with the session's events.
func (s *Service) loop(sub *engine.Subscription) {
	period := s.opts.PollPeriod
	rttOn := period > 0
	if period <= 0 {
		period = DefaultPollPeriod
	}
	ticker := time.NewTicker(period)
	defer ticker.Stop()
	var lastTCB uint64
	names := map[uint64]string{}
	lastVal := map[string]string{}
	events := sub.Events()
	for {
		afterHalt := false
		select {
		case e, ok := <-events:
			if !ok {
				return
			}
			switch e.Kind {
			case engine.EventReset:
				s.rtt.reset()
				continue
			case engine.EventStopped:
				afterHalt = true
			default:
				continue
			}
		case <-ticker.C:
		case <-s.kick:
		}
		if s.t.Ended() || !s.watched() {
			continue // nobody listens: no brief halts (the session's end closes events)
		}
		ws := s.vars.due(time.Now())
		running := s.t.Running()
		if running {
			afterHalt = false // run again already: the stop's work is moot, this is a poll
		}
		kernel := s.kernel()
		wantRTT := rttOn && (afterHalt || running && (s.rtt.worth() || kernel != nil))
		if !wantRTT && len(ws) == 0 && !afterHalt {
			continue
		}
		var tasks []engine.Thread
		var switched *engine.Telemetry
		access := s.t.Access
		if afterHalt {
			// Only while the stop lasts: a front end that resumes at once (a step, a
			// finish) must not find its run cut by a halt for this.
			access = s.t.AccessStopped
		}
		err := access(func(m gdbremote.Access) error {
			if wantRTT {
				s.rtt.drain(m)
			}
			for _, w := range ws {
				s.sample(m, w, lastVal)
			}
			if kernel != nil && (afterHalt || wantRTT) {
				cur, err := kernel.Current(m)
				if err == nil && cur != lastTCB && cur != 0 {
					if lastTCB != 0 {
						switched = &engine.Telemetry{Kind: engine.TelemetryTaskSwitch, From: s.taskName(m, names, lastTCB), To: s.taskName(m, names, cur)}
					}
					lastTCB = cur
				}
				if afterHalt {
					tasks, _ = s.tasks(m)
				}
			}
			return nil
		})
		if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, gdbremote.ErrRunning) {
			s.log.Debug("mcu: poll", "err", err)
		}
		if switched != nil {
			s.publish(*switched)
		}
		if tasks != nil {
			s.publish(engine.Telemetry{Kind: engine.TelemetryTasks, Threads: tasks})
		}
	}
}

func (s *Service) taskName(m gdbremote.Access, cache map[uint64]string, tcb uint64) string {
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

func (s *Service) tasks(m gdbremote.Access) ([]engine.Thread, error) {
	ts, err := s.rtos.Tasks(m)
	if err != nil {
		return nil, err
	}
	out := make([]engine.Thread, 0, len(ts))
	for _, t := range ts {
		out = append(out, engine.Thread{ID: t.Handle, Name: t.Name, State: t.State, Kind: "freertos",
			Priority: t.Priority, StackUsage: t.StackUsage, StackSize: t.StackSize})
	}
	return out, nil
}

// Threads implements engine.ThreadLister: the FreeRTOS tasks (in a brief halt while the
// core runs), none on bare metal, or the program's threads (stopped only).
func (s *Service) Threads(ctx context.Context) ([]engine.Thread, error) {
	if s.kernel() != nil {
		var out []engine.Thread
		err := s.t.Access(func(m gdbremote.Access) error {
			var err error
			out, err = s.tasks(m)
			return err
		})
		return out, err
	}
	if s.isARM() {
		return []engine.Thread{}, nil
	}
	return s.t.Threads(ctx)
}
