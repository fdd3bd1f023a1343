package lantern

// The session table of launch/supervise, in the protocol's words.

import (
	"errors"

	"github.com/polydbg/polydbg/launch/supervise"
)

func (s *Server) withSession(id string, f func(*supervise.Program) (any, error)) (any, error) {
	p, ok := s.progs.Get(id)
	if !ok {
		return nil, perr("not_found", "session not found")
	}
	return f(p)
}

func (s *Server) list() []Session {
	out := []Session{}
	for _, p := range s.progs.List() {
		out = append(out, view(p))
	}
	return out
}

// reserveError is a refused reservation in the protocol's error form.
func reserveError(err error) *protoError {
	var lim *supervise.LimitError
	switch {
	case errors.As(err, &lim) && lim.Bytes:
		return perr("max_total_bytes_reached", "%v", err)
	case errors.As(err, &lim):
		return perr("max_sessions_reached", "at most %d sessions; DELETE one first", lim.Max)
	}
	return perr("shutting_down", "%v", err)
}
