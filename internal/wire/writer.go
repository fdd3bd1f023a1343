package wire

import (
	"io"
	"sync"
)

// SyncWriter serialises writes from several goroutines to one writer, so that lines never
// interleave.
type SyncWriter struct {
	mu sync.Mutex
	W  io.Writer
}

// NewSyncWriter wraps w.
func NewSyncWriter(w io.Writer) *SyncWriter { return &SyncWriter{W: w} }

func (s *SyncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.W.Write(p)
}

// Swap makes w the writer from the next write on, and returns the one before.
func (s *SyncWriter) Swap(w io.Writer) io.Writer {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.W
	s.W = w
	return old
}
