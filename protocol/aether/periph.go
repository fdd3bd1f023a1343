package aether

import (
	"context"
	"encoding/binary"
	"encoding/xml"
	"strconv"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/polydbg/polydbg/backend/gdbremote"
	"github.com/polydbg/polydbg/backend/mcu/svd"
	pb "github.com/polydbg/polydbg/protocol/aether/aetherpb"
)

func (s *Server) svdReg(p, r string) (*svd.Register, error) {
	if s.cfg.SVD == nil {
		return nil, status.Error(codes.FailedPrecondition, "no SVD file was given to the server (--svd)")
	}
	_, reg, err := s.cfg.SVD.Register(p, r)
	if err != nil {
		return nil, status.Error(codes.NotFound, err.Error())
	}
	return reg, nil
}

func (s *Server) order() binary.ByteOrder { return s.tgt.Symbols().Arch.ByteOrder }

func (s *Server) readReg(m gdbremote.Access, r *svd.Register) (uint64, error) {
	n := (r.Size + 7) / 8
	b, err := m.ReadMemory(r.Address, n)
	if err != nil {
		return 0, err
	}
	if len(b) < n {
		return 0, status.Errorf(codes.OutOfRange, "%s at %#x is not readable", r.Name, r.Address)
	}
	return gdbremote.Uint(b, s.order()), nil
}

func (s *Server) writeReg(m gdbremote.Access, r *svd.Register, v uint64) error {
	n := (r.Size + 7) / 8
	var full [8]byte
	s.order().PutUint64(full[:], v)
	b := full[:n]
	if s.order() == binary.BigEndian {
		b = full[8-n:]
	}
	return m.StoreIO(r.Address, b)
}

func decoded(r *svd.Register, v uint64) *pb.PeripheralResponse {
	out := &pb.PeripheralResponse{Value: v, Address: r.Address}
	for _, f := range r.Decode(v) {
		out.Fields = append(out.Fields, &pb.FieldValue{Name: f.Name, BitOffset: uint32(f.BitOffset), BitWidth: uint32(f.BitWidth), Value: f.Value, EnumName: f.Enum})
	}
	return out
}

// ReadPeripheral reads a register named by the SVD file, and decodes it.
func (s *Server) ReadPeripheral(_ context.Context, req *pb.PeripheralRequest) (*pb.PeripheralResponse, error) {
	r, err := s.svdReg(req.Peripheral, req.Register)
	if err != nil {
		return nil, err
	}
	if !r.Readable() {
		return nil, status.Errorf(codes.FailedPrecondition, "%s.%s is %s", req.Peripheral, r.Name, r.Access)
	}
	if err := s.checkEnded(); err != nil {
		return nil, err
	}
	var v uint64
	err = s.tgt.Access(func(m gdbremote.Access) error {
		var err error
		v, err = s.readReg(m, r)
		return err
	})
	if err != nil {
		return nil, s.memErr(err, r.Address, r.Size/8)
	}
	return decoded(r, v), nil
}

// WritePeripheral writes one field of a register by read-modify-write (or the whole
// register when no field is named) and returns the register's new value.
func (s *Server) WritePeripheral(_ context.Context, req *pb.PeripheralWriteRequest) (*pb.PeripheralResponse, error) {
	r, err := s.svdReg(req.Peripheral, req.Register)
	if err != nil {
		return nil, err
	}
	if !r.Writable() {
		return nil, status.Errorf(codes.InvalidArgument, "%s.%s is read-only", req.Peripheral, r.Name)
	}
	var f *svd.Field
	if req.Field != "" {
		if f, err = r.Field(req.Field); err != nil {
			return nil, status.Error(codes.NotFound, err.Error())
		}
		if f.Access == "read-only" {
			return nil, status.Errorf(codes.InvalidArgument, "field %s of %s.%s is read-only", f.Name, req.Peripheral, r.Name)
		}
		if _, err := f.Insert(0, req.Value); err != nil {
			return nil, status.Error(codes.InvalidArgument, err.Error())
		}
	} else if r.Size < 64 && req.Value>>r.Size != 0 {
		return nil, status.Errorf(codes.InvalidArgument, "value %#x does not fit the %d-bit register", req.Value, r.Size)
	}
	if err := s.checkEnded(); err != nil {
		return nil, err
	}
	var nv uint64
	err = s.tgt.Access(func(m gdbremote.Access) error {
		nv = req.Value
		if f != nil {
			old := r.ResetValue
			if r.Readable() {
				var err error
				if old, err = s.readReg(m, r); err != nil {
					return err
				}
			}
			nv, _ = f.Insert(old, req.Value)
		}
		return s.writeReg(m, r, nv)
	})
	if err != nil {
		return nil, s.memErr(err, r.Address, r.Size/8)
	}
	s.publish(&pb.DebugEvent{Event: &pb.DebugEvent_Memory{Memory: &pb.MemoryEvent{Address: r.Address, Data: encode(s.order(), nv, (r.Size+7)/8)}}})
	return decoded(r, nv), nil
}

func encode(o binary.ByteOrder, v uint64, n int) []byte {
	var full [8]byte
	o.PutUint64(full[:], v)
	if o == binary.BigEndian {
		return full[8-n:]
	}
	return full[:n]
}

// ListPeripherals lists the SVD file's peripherals, or one of them in full.
func (s *Server) ListPeripherals(_ context.Context, req *pb.ListPeripheralsRequest) (*pb.PeripheralList, error) {
	if s.cfg.SVD == nil {
		return nil, status.Error(codes.FailedPrecondition, "no SVD file was given to the server (--svd)")
	}
	out := &pb.PeripheralList{}
	if req.Peripheral == "" {
		for _, p := range s.cfg.SVD.Peripherals {
			out.Peripherals = append(out.Peripherals, &pb.PeripheralInfo{Name: p.Name, Description: p.Description, BaseAddress: p.BaseAddress, GroupName: p.GroupName})
		}
		return out, nil
	}
	p, err := s.cfg.SVD.Peripheral(req.Peripheral)
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

// GetTasks lists the RTOS tasks (FreeRTOS), or the threads of a Linux program.
func (s *Server) GetTasks(ctx context.Context, _ *pb.Empty) (*pb.TasksResponse, error) {
	if err := s.checkEnded(); err != nil {
		return nil, err
	}
	if s.rtos != nil {
		var out *pb.TasksResponse
		err := s.tgt.Access(func(m gdbremote.Access) error {
			var err error
			out, err = s.readTasks(m)
			return err
		})
		if err != nil {
			return nil, s.grpcErr(err)
		}
		return out, nil
	}
	if s.isARM() {
		return &pb.TasksResponse{}, nil // bare metal: no tasks
	}
	if err := s.needHalted(); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.SyncTimeout)
	defer cancel()
	out := &pb.TasksResponse{}
	if ts, err := s.threadsXfer(ctx); err == nil {
		out.Tasks = ts
		return out, nil
	}
	ids, err := s.tgt.Client().Threads(ctx)
	if err != nil {
		return nil, s.grpcErr(err)
	}
	for _, id := range ids {
		out.Tasks = append(out.Tasks, &pb.TaskInfo{Name: "thread " + id, State: "stopped", Handle: threadHandle(id), TaskType: "thread"})
	}
	return out, nil
}

// threadHandle is the thread number of a thread id ("p1234.1235" or "4d3").
func threadHandle(id string) uint64 {
	h := id
	if _, t, ok := strings.Cut(id, "."); ok {
		h = t
	}
	v, _ := strconv.ParseUint(strings.TrimPrefix(h, "p"), 16, 64)
	return v
}

// threadsXfer lists the threads with their names (qXfer:threads:read, gdbserver).
func (s *Server) threadsXfer(ctx context.Context) ([]*pb.TaskInfo, error) {
	c := s.tgt.Client()
	if !c.Supports("qXfer:threads:read") {
		return nil, gdbremote.ErrUnsupported
	}
	b, err := c.ReadXfer(ctx, "threads", "")
	if err != nil {
		return nil, err
	}
	var doc struct {
		Threads []struct {
			ID   string `xml:"id,attr"`
			Name string `xml:"name,attr"`
			Core string `xml:"core,attr"`
		} `xml:"thread"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		return nil, err
	}
	var out []*pb.TaskInfo
	for _, t := range doc.Threads {
		name := t.Name
		if name == "" {
			name = "thread " + t.ID
		}
		out = append(out, &pb.TaskInfo{Name: name, State: "stopped", Handle: threadHandle(t.ID), TaskType: "thread"})
	}
	return out, nil
}

func (s *Server) readTasks(m gdbremote.Access) (*pb.TasksResponse, error) {
	tasks, err := s.rtos.Tasks(m)
	if err != nil {
		return nil, err
	}
	out := &pb.TasksResponse{}
	for _, t := range tasks {
		out.Tasks = append(out.Tasks, &pb.TaskInfo{Name: t.Name, Priority: t.Priority, State: t.State, StackUsage: t.StackUsage,
			StackSize: t.StackSize, Handle: t.Handle, TaskType: "freertos"})
	}
	return out, nil
}

// SubscribeEvents streams every event from now on until the client cancels or the
// session ends. The subscription is in place when the response headers arrive.
func (s *Server) SubscribeEvents(_ *pb.Empty, stream pb.AetherDebug_SubscribeEventsServer) error {
	sub := s.hub.subscribe(MaxSubscribers)
	if sub == nil {
		return status.Errorf(codes.ResourceExhausted, "%d agents are subscribed already", MaxSubscribers)
	}
	defer s.hub.unsubscribe(sub)
	if err := stream.SendHeader(metadata.MD{}); err != nil {
		return err
	}
	if h := s.sess.LastHalt(); h.State.Ended() {
		return stream.Send(&pb.DebugEvent{Event: &pb.DebugEvent_Ended{Ended: &pb.EndedEvent{Reason: h.State.String(), ExitCode: int32(h.ExitCode)}}})
	}
	for {
		for _, e := range sub.take() {
			if err := stream.Send(e); err != nil {
				return err
			}
			if _, end := e.Event.(*pb.DebugEvent_Ended); end {
				return nil
			}
		}
		select {
		case <-sub.wake:
		case <-stream.Context().Done():
			return nil
		case <-s.ctx.Done():
			return status.Error(codes.Unavailable, "the server is shutting down")
		}
	}
}
