package aether

import (
	"context"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/polydbg/polydbg/engine"
	pb "github.com/polydbg/polydbg/protocol/aether/aetherpb"
)

// The microcontroller service's side: its telemetry as DebugEvents, RTT writes, variable
// sampling, tasks and peripherals.

// telemetry publishes one report of the service as a DebugEvent.
func (s *Server) telemetry(t engine.Telemetry) {
	e := &pb.DebugEvent{}
	switch t.Kind {
	case engine.TelemetryRTT:
		e.Event = &pb.DebugEvent_Rtt{Rtt: &pb.RttEvent{Channel: uint32(t.Channel), Data: t.Data}}
	case engine.TelemetryPlot:
		e.Event = &pb.DebugEvent_Plot{Plot: &pb.PlotEvent{Name: t.Name, Timestamp: t.Time, Value: t.Value}}
	case engine.TelemetryVariable:
		e.Event = &pb.DebugEvent_Variable{Variable: &pb.VariableEvent{Name: t.Name, Value: t.Text, Type: t.Type, Address: t.Addr}}
	case engine.TelemetryTaskSwitch:
		e.Event = &pb.DebugEvent_TaskSwitch{TaskSwitch: &pb.TaskSwitchEvent{From: t.From, To: t.To, Timestamp: t.Time}}
	case engine.TelemetryTasks:
		if s.hub.count() == 0 {
			return
		}
		e.Event = &pb.DebugEvent_Tasks{Tasks: tasks(t.Threads)}
	default:
		return
	}
	s.publish(e)
}

func tasks(ts []engine.Thread) *pb.TasksResponse {
	out := &pb.TasksResponse{}
	for _, t := range ts {
		out.Tasks = append(out.Tasks, &pb.TaskInfo{Name: t.Name, Priority: t.Priority, State: t.State, StackUsage: t.StackUsage,
			StackSize: t.StackSize, Handle: t.ID, TaskType: t.Kind})
	}
	return out
}

// needDevice is the error of a call that needs the microcontroller service.
func (s *Server) needDevice() error {
	if err := s.checkEnded(); err != nil {
		return err
	}
	if s.dev == nil {
		return status.Error(codes.FailedPrecondition, "this target has no microcontroller service")
	}
	return nil
}

// RttWrite writes into an RTT down-buffer; it returns how much fitted.
func (s *Server) RttWrite(_ context.Context, req *pb.RttWriteRequest) (*pb.RttWriteResponse, error) {
	if len(req.Data) > MaxTransfer {
		return nil, status.Errorf(codes.InvalidArgument, "%d bytes is over the limit of %d", len(req.Data), MaxTransfer)
	}
	if err := s.needDevice(); err != nil {
		return nil, err
	}
	n, err := s.dev.WriteRTT(int(req.Channel), req.Data)
	if err != nil {
		return nil, s.grpcErr(err)
	}
	return &pb.RttWriteResponse{Written: uint32(n)}, nil
}

// WatchVariable samples a global integer or float variable every period_ms as
// PlotEvents; period_ms 0 stops it.
func (s *Server) WatchVariable(_ context.Context, req *pb.WatchVariableRequest) (*pb.Empty, error) {
	if err := s.needDevice(); err != nil {
		return nil, err
	}
	if err := s.dev.Sample(req.Name, time.Duration(req.PeriodMs)*time.Millisecond); err != nil {
		return nil, s.grpcErr(err)
	}
	return empty, nil
}

// GetTasks lists the RTOS tasks (FreeRTOS), or the threads of a Linux program.
func (s *Server) GetTasks(ctx context.Context, _ *pb.Empty) (*pb.TasksResponse, error) {
	if err := s.needDevice(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.SyncTimeout)
	defer cancel()
	ts, err := s.dev.Threads(ctx)
	if err != nil {
		return nil, s.grpcErr(err)
	}
	return tasks(ts), nil
}

func peripheral(v engine.PeripheralValue) *pb.PeripheralResponse {
	out := &pb.PeripheralResponse{Value: v.Value, Address: v.Address}
	for _, f := range v.Fields {
		out.Fields = append(out.Fields, &pb.FieldValue{Name: f.Name, BitOffset: uint32(f.BitOffset), BitWidth: uint32(f.BitWidth), Value: f.Value, EnumName: f.Enum})
	}
	return out
}

// ReadPeripheral reads a register named by the SVD file, and decodes it.
func (s *Server) ReadPeripheral(_ context.Context, req *pb.PeripheralRequest) (*pb.PeripheralResponse, error) {
	if err := s.needDevice(); err != nil {
		return nil, err
	}
	v, err := s.dev.ReadPeripheral(req.Peripheral, req.Register)
	if err != nil {
		return nil, s.memErr(err, v.Address, v.Size/8)
	}
	return peripheral(v), nil
}

// WritePeripheral writes one field of a register by read-modify-write (or the whole
// register when no field is named) and returns the register's new value.
func (s *Server) WritePeripheral(_ context.Context, req *pb.PeripheralWriteRequest) (*pb.PeripheralResponse, error) {
	if err := s.needDevice(); err != nil {
		return nil, err
	}
	v, err := s.dev.WritePeripheral(req.Peripheral, req.Register, req.Field, req.Value)
	if err != nil {
		return nil, s.memErr(err, v.Address, v.Size/8)
	}
	s.publish(&pb.DebugEvent{Event: &pb.DebugEvent_Memory{Memory: &pb.MemoryEvent{Address: v.Address, Data: v.Bytes}}})
	return peripheral(v), nil
}

// ListPeripherals lists the SVD file's peripherals, or one of them in full.
func (s *Server) ListPeripherals(_ context.Context, req *pb.ListPeripheralsRequest) (*pb.PeripheralList, error) {
	dev := s.d.Device
	if dev == nil {
		return nil, status.Error(codes.FailedPrecondition, "no SVD file was given to the server (--svd)")
	}
	out := &pb.PeripheralList{}
	if req.Peripheral == "" {
		for _, p := range dev.Peripherals {
			out.Peripherals = append(out.Peripherals, &pb.PeripheralInfo{Name: p.Name, Description: p.Description, BaseAddress: p.BaseAddress, GroupName: p.GroupName})
		}
		return out, nil
	}
	p, err := dev.Peripheral(req.Peripheral)
	if err != nil {
		return nil, status.Error(codes.NotFound, err.Error())
	}
	pi := &pb.PeripheralInfo{Name: p.Name, Description: p.Description, BaseAddress: p.BaseAddress, GroupName: p.GroupName}
	for _, r := range p.Registers {
		rd := &pb.RegisterDesc{Name: r.Name, Description: r.Description, Address: r.Address, Size: uint32(r.Size), Access: r.Access, ResetValue: r.ResetValue}
		for _, f := range r.Fields {
			fd := &pb.FieldDesc{Name: f.Name, Description: f.Description, BitOffset: uint32(f.BitOffset), BitWidth: uint32(f.BitWidth), Access: f.Access}
			for _, e := range f.Enums {
				if !e.IsDefault {
					fd.Enums = append(fd.Enums, &pb.EnumDesc{Name: e.Name, Value: e.Value, Description: e.Description})
				}
			}
			rd.Fields = append(rd.Fields, fd)
		}
		pi.Registers = append(pi.Registers, rd)
	}
	out.Peripherals = append(out.Peripherals, pi)
	return out, nil
}
