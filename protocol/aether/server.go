// Package aether is the Aether agent interface of polydbg: a gRPC service
// (protocol/aether/aether.proto, docs/protocols/aether.md) through which AI agents and tools drive a
// target behind a GDB stub — a microcontroller through QEMU, OpenOCD, pyOCD, probe-rs or
// J-Link, or a Linux program through gdbserver. It only translates: RPCs to calls of the
// launch.Debuggee's engine.Session, of the target's capability interfaces and of its
// microcontroller service (launch.Debuggee.MCU), and engine events and the service's
// telemetry (RTT data, plots, samples, task switches) to DebugEvents.
package aether

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/launch"
	pb "github.com/polydbg/polydbg/protocol/aether/aetherpb"
)

// Defaults of Config.
const (
	DefaultSyncTimeout = 2 * time.Second
	DefaultEventBuffer = 1024
	DefaultPollPeriod  = launch.DefaultPollPeriod
	// MaxTransfer bounds ReadMemory, WriteMemory and RttWrite lengths.
	MaxTransfer = 1 << 20
	// MaxSubscribers bounds the SubscribeEvents streams open at once.
	MaxSubscribers = 64
	// ConsoleChannel is the RttEvent channel of program output that is not RTT: semihosting
	// output of firmware, stdout of a Linux program, a stub's console messages.
	ConsoleChannel = 0xFFFF
)

// Config configures a Server.
type Config struct {
	// Debuggee is the started debuggee (launch.Start; Native, QEMU or Remote), in state
	// Initialized: the server starts it and owns it from now on.
	Debuggee *launch.Debuggee

	// SyncTimeout bounds Halt, the Step family and Reset (default 2 s).
	SyncTimeout time.Duration
	// EventBuffer is each subscriber's queue bound (default 1024 events).
	EventBuffer int
	// Token, when set, is required from every call as metadata "authorization: Bearer TOKEN".
	Token string
	// Run starts the program running; otherwise it is halted at its entry point.
	Run bool
}

// device is what the server needs of the debuggee's microcontroller service.
type device interface {
	engine.TelemetrySource
	engine.RTTChannels
	engine.Sampler
	engine.Peripherals
	engine.ThreadLister
}

// Server implements aetherpb.AetherDebugServer.
type Server struct {
	pb.UnimplementedAetherDebugServer

	cfg  Config
	d    *launch.Debuggee
	sess *engine.Session
	dev  device // nil for targets without the service
	// the target's registers by number, when it has them
	nregs engine.NumberedRegisters
	regs  map[int]engine.RegisterDesc
	hub   *hub
	ctx   context.Context
	stop  context.CancelFunc
	wg    sync.WaitGroup
	op    chan struct{} // a token: serialises execution control (see acquire)
}

// New starts cfg.Debuggee (halted at the program's entry unless cfg.Run) and the server's
// event pump.
func New(cfg Config) (*Server, error) {
	if cfg.Debuggee == nil {
		return nil, errors.New("aether: no debuggee")
	}
	if cfg.SyncTimeout <= 0 {
		cfg.SyncTimeout = DefaultSyncTimeout
	}
	if cfg.EventBuffer <= 0 {
		cfg.EventBuffer = DefaultEventBuffer
	}
	s := &Server{cfg: cfg, d: cfg.Debuggee, sess: cfg.Debuggee.Session, hub: newHub(cfg.EventBuffer), op: make(chan struct{}, 1)}
	s.ctx, s.stop = context.WithCancel(context.Background())
	if nr, ok := s.sess.Target().(engine.NumberedRegisters); ok {
		s.nregs, s.regs = nr, map[int]engine.RegisterDesc{}
		for _, r := range nr.RegisterDescs() {
			s.regs[r.Num] = r
		}
	}
	if s.d.MCU != nil {
		s.dev = s.d.MCU
		stop := s.dev.Watch(s.telemetry)
		context.AfterFunc(s.ctx, stop)
	}
	sub := s.sess.Subscribe()
	s.wg.Add(1)
	go s.pump(sub)
	if err := s.sess.Start(!cfg.Run); err != nil {
		s.Close()
		return nil, fmt.Errorf("aether: start: %w", err)
	}
	return s, nil
}

// Session is the engine session the server drives.
func (s *Server) Session() *engine.Session { return s.sess }

// Close ends the debug session, the target and the server's goroutines.
func (s *Server) Close() error {
	s.stop()
	err := s.sess.Close()
	s.wg.Wait()
	return err
}

// Register adds the service to a gRPC server.
func (s *Server) Register(g *grpc.Server) { pb.RegisterAetherDebugServer(g, s) }

// ServerOptions are the interceptors that check the token (when one is configured) and
// the limits of the gRPC server: requests of at most MaxTransfer plus 64 KiB, at most 256
// concurrent calls per connection.
func (s *Server) ServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.MaxRecvMsgSize(MaxTransfer + 64<<10),
		grpc.MaxConcurrentStreams(256),
		grpc.UnaryInterceptor(func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
			if err := s.auth(ctx); err != nil {
				return nil, err
			}
			return h(ctx, req)
		}),
		grpc.StreamInterceptor(func(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, h grpc.StreamHandler) error {
			if err := s.auth(ss.Context()); err != nil {
				return err
			}
			return h(srv, ss)
		}),
	}
}

func (s *Server) auth(ctx context.Context) error {
	if s.cfg.Token == "" {
		return nil
	}
	md, _ := metadata.FromIncomingContext(ctx)
	for _, v := range md.Get("authorization") {
		tok, ok := strings.CutPrefix(v, "Bearer ")
		if ok && subtle.ConstantTimeCompare([]byte(tok), []byte(s.cfg.Token)) == 1 {
			return nil
		}
	}
	return status.Error(codes.Unauthenticated, "a valid \"authorization: Bearer TOKEN\" is required")
}

func (s *Server) publish(e *pb.DebugEvent) { s.hub.publish(e) }

// pump turns engine events into DebugEvents.
func (s *Server) pump(sub *engine.Subscription) {
	defer s.wg.Done()
	for e := range sub.Events() {
		ev := &pb.DebugEvent{}
		switch e.Kind {
		case engine.EventStopped:
			ev.Event = &pb.DebugEvent_Halted{Halted: &pb.HaltedEvent{Pc: e.Stop.Location.PC, Reason: string(e.Stop.Reason)}}
		case engine.EventContinued:
			ev.Event = &pb.DebugEvent_Resumed{Resumed: &pb.ResumedEvent{}}
		case engine.EventOutput:
			ev.Event = &pb.DebugEvent_Rtt{Rtt: &pb.RttEvent{Channel: ConsoleChannel, Data: []byte(e.Text)}}
		case engine.EventBreakpointChanged, engine.EventBreakpointRemoved:
			if e.Breakpoint.Location.HasPC {
				ev.Event = &pb.DebugEvent_Breakpoint{Breakpoint: &pb.BreakpointEvent{Address: e.Breakpoint.Location.PC, Enabled: e.Kind == engine.EventBreakpointChanged}}
			}
		case engine.EventExited, engine.EventTerminated:
			ev.Event = &pb.DebugEvent_Ended{Ended: &pb.EndedEvent{Reason: string(e.Kind), ExitCode: int32(e.ExitCode)}}
		}
		if ev.Event != nil {
			s.publish(ev)
		}
	}
}

// acquire takes the execution-control token, waiting at most SyncTimeout (or until ctx
// ends) for the call that holds it; release gives it back.
func (s *Server) acquire(ctx context.Context) error {
	select {
	case s.op <- struct{}{}:
		return nil
	default:
	}
	timer := time.NewTimer(s.cfg.SyncTimeout)
	defer timer.Stop()
	select {
	case s.op <- struct{}{}:
		return nil
	case <-timer.C:
		return status.Errorf(codes.Aborted, "another execution control call (a Reset?) is still in progress after %v", s.cfg.SyncTimeout)
	case <-ctx.Done():
		return status.FromContextError(ctx.Err()).Err()
	case <-s.ctx.Done():
		return status.Error(codes.Unavailable, "the server is shutting down")
	}
}

func (s *Server) release() { <-s.op }

// wait runs an execution control call and waits for the halt it leads to, within
// SyncTimeout.
func (s *Server) wait(ctx context.Context, run func(context.Context) (engine.Halt, error)) (*pb.StatusResponse, error) {
	wctx, cancel := context.WithTimeout(ctx, s.cfg.SyncTimeout)
	defer cancel()
	h, err := run(wctx)
	switch {
	case err == nil:
	case ctx.Err() != nil:
		return nil, status.FromContextError(ctx.Err()).Err()
	case wctx.Err() != nil:
		return nil, status.Errorf(codes.DeadlineExceeded, "the core did not halt within %v (it is still running; Halt stops it)", s.cfg.SyncTimeout)
	default:
		return nil, s.grpcErr(err)
	}
	if h.State != engine.Stopped {
		return nil, status.Errorf(codes.Unavailable, "the target has %s", h.State)
	}
	return stopStatus(h.Stop), nil
}

func stopStatus(st *engine.Stop) *pb.StatusResponse {
	l := st.Location
	return &pb.StatusResponse{Halted: true, Pc: l.PC, CoreStatus: "halted", Reason: string(st.Reason),
		FunctionName: l.Func, File: l.File, Line: uint32(max(l.Line, 0))}
}

func (s *Server) status() *pb.StatusResponse {
	if st := s.sess.LastStop(); st != nil {
		return stopStatus(st)
	}
	return &pb.StatusResponse{CoreStatus: s.sess.State().String()}
}

// grpcErr maps an error to its gRPC status.
func (s *Server) grpcErr(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	switch {
	case errors.Is(err, engine.ErrRunning):
		return status.Errorf(codes.FailedPrecondition, "the core is running (Halt it first): %v", err)
	case errors.Is(err, engine.ErrNotStarted), errors.Is(err, engine.ErrUnsupported):
		return status.Error(codes.FailedPrecondition, err.Error())
	case errors.Is(err, engine.ErrEnded), s.sess.State().Ended():
		return status.Errorf(codes.Unavailable, "the target is gone: %v", err)
	case errors.Is(err, engine.ErrNotFound):
		return status.Error(codes.NotFound, err.Error())
	case errors.Is(err, engine.ErrInvalid):
		return status.Error(codes.InvalidArgument, err.Error())
	case errors.Is(err, engine.ErrRefused):
		return status.Errorf(codes.Aborted, "the stub refused: %v", err)
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, err.Error())
	}
	return status.Error(codes.Internal, err.Error())
}
