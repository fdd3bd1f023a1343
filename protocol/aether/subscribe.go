package aether

import (
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	pb "github.com/polydbg/polydbg/protocol/aether/aetherpb"
)

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
		case <-sub.wake():
		case <-stream.Context().Done():
			return nil
		case <-s.ctx.Done():
			return status.Error(codes.Unavailable, "the server is shutting down")
		}
	}
}
