package lantern

// The session table: lookup, listing, fresh ids, and the session and byte budgets.

import (
	"crypto/rand"
	"encoding/hex"
	"sort"

	"github.com/polydbg/polydbg/launch/supervise"
)

func (s *Server) lookup(id string) (*supervise.Program, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.sessions[id]
	if !ok {
		return nil, perr("not_found", "session not found")
	}
	return ss, nil
}

func (s *Server) withSession(id string, f func(*supervise.Program) (any, error)) (any, error) {
	ss, err := s.lookup(id)
	if err != nil {
		return nil, err
	}
	return f(ss)
}

func (s *Server) list() []Session {
	s.mu.Lock()
	list := make([]*supervise.Program, 0, len(s.sessions))
	for _, ss := range s.sessions {
		list = append(list, ss)
	}
	s.mu.Unlock()
	sort.Slice(list, func(i, j int) bool { return list[i].Seq < list[j].Seq })
	out := make([]Session, 0, len(list))
	for _, ss := range list {
		out = append(out, view(ss))
	}
	return out
}

// newID returns a fresh 8-hex-digit session id, as in the document ("a3f2c9d1").
func (s *Server) newID() string {
	for {
		var b [4]byte
		rand.Read(b[:])
		id := hex.EncodeToString(b[:])
		if _, taken := s.sessions[id]; !taken {
			return id
		}
	}
}

// reserve takes one session slot and n bytes of the budget, or says which limit stops it.
func (s *Server) reserve(n int64) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return perr("shutting_down", "the daemon is stopping")
	}
	if len(s.sessions)+s.pending >= s.cfg.MaxSessions {
		return perr("max_sessions_reached", "at most %d sessions; DELETE one first", s.cfg.MaxSessions)
	}
	if s.bytes+n > s.cfg.MaxBytes {
		return perr("max_total_bytes_reached", "uploads may hold at most %d bytes in all (%d in use)", s.cfg.MaxBytes, s.bytes)
	}
	s.pending++
	s.bytes += n
	return nil
}

// takeBytes grows a reservation; it fails when the budget would be exceeded.
func (s *Server) takeBytes(n int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.bytes+n > s.cfg.MaxBytes {
		return false
	}
	s.bytes += n
	return true
}

func (s *Server) giveBytes(n int64) {
	s.mu.Lock()
	s.bytes -= n
	s.mu.Unlock()
}
