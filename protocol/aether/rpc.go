package aether

import (
	"context"
	"errors"
	"slices"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/polydbg/polydbg/engine"
	pb "github.com/polydbg/polydbg/protocol/aether/aetherpb"
)

var empty = &pb.Empty{}

func (s *Server) checkEnded() error {
	if st := s.sess.State(); st.Ended() {
		return status.Errorf(codes.Unavailable, "the target has %s", st)
	}
	return nil
}

// control runs an execution control call holding the token, on a target that has not ended.
func (s *Server) control(ctx context.Context, run func() (*pb.StatusResponse, error)) (*pb.StatusResponse, error) {
	if err := s.acquire(ctx); err != nil {
		return nil, err
	}
	defer s.release()
	if err := s.checkEnded(); err != nil {
		return nil, err
	}
	return run()
}

// Halt stops the core and returns once it has halted.
func (s *Server) Halt(ctx context.Context, _ *pb.Empty) (*pb.StatusResponse, error) {
	return s.control(ctx, func() (*pb.StatusResponse, error) {
		return s.wait(ctx, s.sess.PauseAndWait)
	})
}

// Resume continues the core and returns at once.
func (s *Server) Resume(ctx context.Context, _ *pb.Empty) (*pb.Empty, error) {
	_, err := s.control(ctx, func() (*pb.StatusResponse, error) {
		if err := s.sess.Continue(); err != nil && !errors.Is(err, engine.ErrRunning) {
			return nil, s.grpcErr(err)
		}
		return nil, nil
	})
	if err != nil {
		return nil, err
	}
	return empty, nil
}

func (s *Server) step(ctx context.Context, mode engine.ResumeMode) (*pb.StatusResponse, error) {
	return s.control(ctx, func() (*pb.StatusResponse, error) {
		return s.wait(ctx, func(c context.Context) (engine.Halt, error) { return s.sess.ResumeAndWait(c, mode) })
	})
}

// Step executes one instruction.
func (s *Server) Step(ctx context.Context, _ *pb.Empty) (*pb.StatusResponse, error) {
	return s.step(ctx, engine.StepInstruction)
}

// StepOver steps over the current line, calls included.
func (s *Server) StepOver(ctx context.Context, _ *pb.Empty) (*pb.StatusResponse, error) {
	return s.step(ctx, engine.StepOver)
}

// StepInto steps to the next line, entering calls.
func (s *Server) StepInto(ctx context.Context, _ *pb.Empty) (*pb.StatusResponse, error) {
	return s.step(ctx, engine.StepInto)
}

// StepOut runs until the current function returns.
func (s *Server) StepOut(ctx context.Context, _ *pb.Empty) (*pb.StatusResponse, error) {
	return s.step(ctx, engine.StepOut)
}

// resetTimeout bounds a reset that goes on in the background after SyncTimeout.
const resetTimeout = 30 * time.Second

// Reset resets the target through the session (every subscriber sees it) and returns once
// it is halted at the reset vector, within SyncTimeout. Past it the answer is
// DEADLINE_EXCEEDED; the reset still completes in the background (and its halted event
// goes out), and execution control calls wait for it.
func (s *Server) Reset(ctx context.Context, _ *pb.Empty) (*pb.StatusResponse, error) {
	if err := s.acquire(ctx); err != nil {
		return nil, err
	}
	if err := s.checkEnded(); err != nil {
		s.release()
		return nil, err
	}
	type result struct {
		h   engine.Halt
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer s.release()
		rctx, cancel := context.WithTimeout(s.ctx, resetTimeout)
		defer cancel()
		h, err := s.sess.Reset(rctx, true)
		done <- result{h, err}
	}()
	return s.wait(ctx, func(c context.Context) (engine.Halt, error) {
		select {
		case r := <-done:
			return r.h, r.err
		case <-c.Done():
			return engine.Halt{}, c.Err()
		}
	})
}

// GetStatus reports whether the core is halted, and where.
func (s *Server) GetStatus(context.Context, *pb.Empty) (*pb.StatusResponse, error) {
	return s.status(), nil
}

// SetBreakpoint sets a breakpoint at an address (idempotent).
func (s *Server) SetBreakpoint(_ context.Context, req *pb.BreakpointRequest) (*pb.Empty, error) {
	if err := s.checkEnded(); err != nil {
		return nil, err
	}
	if _, err := s.sess.EnsureInstructionBreakpoint(req.Address); err != nil {
		return nil, s.grpcErr(err)
	}
	return empty, nil
}

// ClearBreakpoint removes the breakpoints at an address; NOT_FOUND if there is none.
func (s *Server) ClearBreakpoint(_ context.Context, req *pb.BreakpointRequest) (*pb.Empty, error) {
	switch bs, addr, err := s.sess.ClearBreakpointsAt(req.Address); {
	case err != nil:
		return nil, s.grpcErr(err)
	case len(bs) == 0:
		return nil, status.Errorf(codes.NotFound, "no breakpoint at %#x", addr)
	}
	return empty, nil
}

// ListBreakpoints lists the addresses of the session's breakpoints in order.
func (s *Server) ListBreakpoints(context.Context, *pb.Empty) (*pb.BreakpointList, error) {
	out := &pb.BreakpointList{}
	for _, b := range s.sess.Breakpoints() {
		if b.Location.HasPC && !slices.Contains(out.Addresses, b.Location.PC) {
			out.Addresses = append(out.Addresses, b.Location.PC)
		}
	}
	slices.Sort(out.Addresses)
	return out, nil
}

func checkLen(n int) error {
	if n == 0 {
		return status.Error(codes.InvalidArgument, "length must not be zero")
	}
	if n > MaxTransfer {
		return status.Errorf(codes.InvalidArgument, "length %d is over the limit of %d bytes", n, MaxTransfer)
	}
	return nil
}

// memErr maps a failed memory access: a stub refusal is an address out of range.
func (s *Server) memErr(err error, addr uint64, n int) error {
	if errors.Is(err, engine.ErrRefused) {
		return status.Errorf(codes.OutOfRange, "cannot access %d bytes at %#x: %v", n, addr, err)
	}
	return s.grpcErr(err)
}

// ReadMemory reads target memory, in a brief halt if the core runs.
func (s *Server) ReadMemory(_ context.Context, req *pb.ReadMemoryRequest) (*pb.MemoryResponse, error) {
	if err := checkLen(int(req.Length)); err != nil {
		return nil, err
	}
	if err := s.checkEnded(); err != nil {
		return nil, err
	}
	data, err := s.sess.ReadMemoryLive(req.Address, int(req.Length))
	if err != nil {
		return nil, s.memErr(err, req.Address, int(req.Length))
	}
	if len(data) < int(req.Length) {
		return nil, status.Errorf(codes.OutOfRange, "only %d of %d bytes at %#x are readable", len(data), req.Length, req.Address)
	}
	return &pb.MemoryResponse{Data: data}, nil
}

// WriteMemory writes target memory, in a brief halt if the core runs.
func (s *Server) WriteMemory(_ context.Context, req *pb.WriteMemoryRequest) (*pb.Empty, error) {
	if err := checkLen(len(req.Data)); err != nil {
		return nil, err
	}
	if err := s.checkEnded(); err != nil {
		return nil, err
	}
	if err := s.sess.WriteMemoryLive(req.Address, req.Data); err != nil {
		return nil, s.memErr(err, req.Address, len(req.Data))
	}
	s.publish(&pb.DebugEvent{Event: &pb.DebugEvent_Memory{Memory: &pb.MemoryEvent{Address: req.Address, Data: req.Data}}})
	return empty, nil
}

// register finds a register by the target's number (see ListRegisters).
func (s *Server) register(num uint32) (engine.RegisterDesc, error) {
	if r, ok := s.regs[int(num)]; ok {
		return r, nil
	}
	return engine.RegisterDesc{}, status.Errorf(codes.InvalidArgument, "no register number %d (ListRegisters names them)", num)
}

// ReadRegister reads a register by the stub's register number (see ListRegisters).
func (s *Server) ReadRegister(_ context.Context, req *pb.ReadRegisterRequest) (*pb.RegisterResponse, error) {
	if _, err := s.register(req.RegisterNumber); err != nil {
		return nil, err
	}
	if err := s.needHalted(); err != nil {
		return nil, err
	}
	v, err := s.nregs.RegisterValue(int(req.RegisterNumber))
	if err != nil {
		return nil, s.grpcErr(err)
	}
	return &pb.RegisterResponse{Value: v}, nil
}

// WriteRegister writes a register by the stub's register number.
func (s *Server) WriteRegister(_ context.Context, req *pb.WriteRegisterRequest) (*pb.Empty, error) {
	r, err := s.register(req.RegisterNumber)
	if err != nil {
		return nil, err
	}
	if r.Bits < 64 && req.Value>>r.Bits != 0 {
		return nil, status.Errorf(codes.InvalidArgument, "value %#x does not fit the %d-bit register %s", req.Value, r.Bits, r.Name)
	}
	if err := s.needHalted(); err != nil {
		return nil, err
	}
	if err := s.sess.WriteRegister(r.Name, req.Value); err != nil {
		return nil, s.grpcErr(err)
	}
	s.publish(&pb.DebugEvent{Event: &pb.DebugEvent_Register{Register: &pb.RegisterEvent{Register: req.RegisterNumber, Value: req.Value}}})
	return empty, nil
}

func (s *Server) needHalted() error {
	if err := s.checkEnded(); err != nil {
		return err
	}
	if st := s.sess.State(); st != engine.Stopped {
		return status.Errorf(codes.FailedPrecondition, "the core is %s; Halt it first", st)
	}
	return nil
}

// ListRegisters lists the registers of the stub's target description.
func (s *Server) ListRegisters(context.Context, *pb.Empty) (*pb.RegisterList, error) {
	out := &pb.RegisterList{}
	if s.nregs != nil {
		for _, r := range s.nregs.RegisterDescs() {
			out.Registers = append(out.Registers, &pb.RegisterInfo{Number: uint32(r.Num), Name: r.Name, Bits: uint32(r.Bits), Group: r.Group})
		}
	}
	return out, nil
}

// GetStack unwinds the halted core's stack with the ELF file's DWARF.
func (s *Server) GetStack(context.Context, *pb.Empty) (*pb.StackResponse, error) {
	if err := s.needHalted(); err != nil {
		return nil, err
	}
	fs, err := s.sess.Stack()
	if err != nil {
		return nil, s.grpcErr(err)
	}
	out := &pb.StackResponse{}
	for _, f := range fs {
		out.Frames = append(out.Frames, &pb.StackFrame{Pc: f.Location.PC, FunctionName: f.Func, File: f.Location.File, Line: uint32(max(f.Location.Line, 0))})
	}
	return out, nil
}
