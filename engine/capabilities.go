package engine

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Capabilities a target (or a service beside it) may have besides Target, found by type
// assertion on Session.Target() (or on the service): reset, threads and tasks, memory
// while running, registers by the target's own numbers, RTT channels, peripherals and
// variable sampling. Reset goes through the session (Session.Reset) so that every
// subscriber sees it.

// ReasonReset is the stop at the reset vector after Session.Reset.
const ReasonReset StopReason = "reset"

// ErrNotFound says that a named thing (peripheral, register, field, variable, channel) does
// not exist.
var ErrNotFound = errors.New("not found")

// ErrInvalid says that a request cannot be met as asked (a value too wide for its field, a
// variable that is not a number).
var ErrInvalid = errors.New("invalid request")

// ErrRefused says that the target refused an operation (a GDB stub's error reply, such as
// memory that is not mapped).
var ErrRefused = errors.New("refused by the target")

// Resetter is implemented by targets that can be reset (a microcontroller, a program under
// gdbserver). Reset is called on a stopped target. With halt the target stops at its reset
// vector and reports that stop (ReasonReset) through its Handler; without, it runs on.
type Resetter interface {
	Reset(halt bool) error
}

// Thread is one thread of a program or one task of an RTOS.
type Thread struct {
	ID         uint64 // the thread number, or the task's control block address
	Num        int    // gdb's number for it: 1, 2, 3... in the order the session first saw it
	Handle     uint64 // the thread library's handle (a native thread's pthread_t, gdb's "Thread 0x..."), 0 when unknown
	Name       string
	State      string // "stopped", or the RTOS's task state ("running", "ready", "blocked"...)
	Kind       string // "thread", or the RTOS ("freertos")
	Priority   uint32
	StackUsage uint32 // bytes (RTOS tasks)
	StackSize  uint32
}

// ThreadLister is implemented by targets (and device services) that list their threads or
// RTOS tasks.
type ThreadLister interface {
	Threads(ctx context.Context) ([]Thread, error)
}

// LiveMemory is implemented by targets whose memory may be read and written while they run
// (in a brief halt the session never sees, on stubs that cannot do otherwise). WriteLive
// makes memory-mapped I/O see the write.
type LiveMemory interface {
	ReadLive(addr uint64, n int) ([]byte, error)
	WriteLive(addr uint64, data []byte) error
}

// RegisterDesc describes a machine register in the target's own numbering.
type RegisterDesc struct {
	Name  string
	Num   int
	Bits  int
	Group string
}

// NumberedRegisters is implemented by targets whose registers front ends address by the
// target's own numbers (a GDB stub's): their descriptions (in any state) and one
// register's value (low 64 bits) of a stopped target, without reading them all.
type NumberedRegisters interface {
	RegisterDescs() []RegisterDesc
	RegisterValue(num int) (uint64, error)
}

// FieldValue is one decoded bit field of a peripheral register.
type FieldValue struct {
	Name      string
	BitOffset int
	BitWidth  int
	Value     uint64
	Enum      string // the value's name, when the device description has one
}

// PeripheralValue is a peripheral register's value, decoded.
type PeripheralValue struct {
	Address uint64
	Size    int // bits
	Value   uint64
	Bytes   []byte // the value as it is in memory
	Fields  []FieldValue
}

// Peripherals is implemented by device services with a description of the device (an SVD
// file): registers read and written by name, in any state. WritePeripheral writes one
// field by read-modify-write, or the whole register when field is empty.
type Peripherals interface {
	ReadPeripheral(periph, reg string) (PeripheralValue, error)
	WritePeripheral(periph, reg, field string, value uint64) (PeripheralValue, error)
}

// RTTChannels is implemented by device services that talk to the firmware over SEGGER RTT;
// data from the firmware arrives as Telemetry.
type RTTChannels interface {
	WriteRTT(channel int, data []byte) (int, error)
}

// Sampler is implemented by device services that sample global variables while the
// debuggee runs (period 0 stops sampling name); values arrive as Telemetry.
type Sampler interface {
	Sample(name string, period time.Duration) error
}

// TelemetryKind names what a device service reports.
type TelemetryKind string

const (
	TelemetryRTT        TelemetryKind = "rtt"        // Channel, Data
	TelemetryPlot       TelemetryKind = "plot"       // Name, Value (a plot line or a sample)
	TelemetryVariable   TelemetryKind = "variable"   // Name, Text, Type, Addr: a sample that changed
	TelemetryTaskSwitch TelemetryKind = "taskSwitch" // From, To
	TelemetryTasks      TelemetryKind = "tasks"      // Threads, after a halt
)

// Telemetry is one report of a device service, stamped with the seconds since it started.
type Telemetry struct {
	Kind     TelemetryKind
	Time     float64
	Channel  int
	Data     []byte
	Name     string
	Value    float64
	Text     string
	Type     string
	Addr     uint64
	From, To string
	Threads  []Thread
}

// TelemetrySource is implemented by device services. Watch calls fn for every report
// from now on, on the service's goroutine (fn must not block), until stop is called.
type TelemetrySource interface {
	Watch(fn func(Telemetry)) (stop func())
}

// PauseAndWait stops a running debuggee and returns the halt that follows (a stop, or the
// end when it ended first); a stopped one's last halt comes at once, and a debuggee not
// started or ended gets Pause's error. The event number is taken before the state is read,
// so that a stop of its own between the two (a breakpoint) is the one waited for: Pause,
// then a no-op, would otherwise leave the wait for a stop that never comes.
func (s *Session) PauseAndWait(ctx context.Context) (Halt, error) {
	seq := s.Seq()
	if s.State() != Running {
		if err := s.Pause(); err != nil {
			return Halt{}, err
		}
		return s.LastHalt(), nil
	}
	if err := s.Pause(); err != nil {
		return Halt{}, err
	}
	return s.WaitStop(ctx, seq)
}

// pauseAndWait is PauseAndWait for the session's own commands, which go on from any state.
func (s *Session) pauseAndWait(ctx context.Context) error {
	if s.State() != Running {
		return nil
	}
	_, err := s.PauseAndWait(ctx)
	return err
}

// Reset resets the target through the session, so that every subscriber sees it: a
// running target is paused first, then EventReset goes out, then the stop at the reset
// vector (halt) or EventContinued. With halt it waits (bounded by ctx) for that stop.
func (s *Session) Reset(ctx context.Context, halt bool) (Halt, error) {
	r, ok := s.t.(Resetter)
	if !ok {
		return Halt{}, fmt.Errorf("reset: %w", ErrUnsupported)
	}
	if err := s.pauseAndWait(ctx); err != nil {
		return Halt{}, err
	}
	s.takeWatches()
	s.mu.Lock()
	if err := s.needStopped("reset"); err != nil {
		s.mu.Unlock()
		return Halt{}, err
	}
	s.emit(Event{Kind: EventReset})
	seq := s.seq
	if !halt {
		s.state, s.lastStop = Running, nil
		s.emit(Event{Kind: EventContinued, Mode: Continue})
	}
	s.mu.Unlock()
	if err := r.Reset(halt); err != nil {
		s.mu.Lock()
		if s.state == Running {
			s.state = Stopped
		}
		s.mu.Unlock()
		return Halt{}, err
	}
	if !halt {
		return Halt{}, nil
	}
	return s.WaitStop(ctx, seq)
}
