package process

import "sync"

// Ring keeps the most recent output of a program in a fixed amount of memory while counting
// every byte ever written, so readers can follow the output by absolute offset (offset 0 is
// the program's first byte) and learn when the part they asked for was trimmed. It is safe
// for concurrent use.
type Ring struct {
	mu      sync.Mutex
	buf     []byte // len == capacity; data wraps around
	total   int64  // bytes ever written
	changed chan struct{}
}

// NewRing returns a ring that keeps the last size bytes.
func NewRing(size int) *Ring {
	if size <= 0 {
		size = 1
	}
	return &Ring{buf: make([]byte, size), changed: make(chan struct{})}
}

// Write appends p, dropping the oldest bytes beyond the ring's size. It never fails.
func (r *Ring) Write(p []byte) (int, error) {
	n := len(p)
	if n == 0 {
		return 0, nil
	}
	r.mu.Lock()
	size := int64(len(r.buf))
	if int64(len(p)) > size {
		r.total += int64(len(p)) - size
		p = p[int64(len(p))-size:]
	}
	for len(p) > 0 {
		at := int(r.total % size)
		c := copy(r.buf[at:], p)
		p = p[c:]
		r.total += int64(c)
	}
	close(r.changed)
	r.changed = make(chan struct{})
	r.mu.Unlock()
	return n, nil
}

// Total returns the number of bytes ever written.
func (r *Ring) Total() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.total
}

// Start returns the offset of the oldest byte still kept.
func (r *Ring) Start() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.start()
}

func (r *Ring) start() int64 {
	if s := r.total - int64(len(r.buf)); s > 0 {
		return s
	}
	return 0
}

// ReadFrom returns a copy of the output from offset off to the end. When off is older than
// what the ring still keeps, the data starts at the oldest kept byte instead and trimmed is
// true; from is the offset the data really starts at. An offset past the end returns no
// data from the end. total is the number of bytes ever written.
func (r *Ring) ReadFrom(off int64) (data []byte, from, total int64, trimmed bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	start := r.start()
	if off < 0 {
		off = 0
	}
	if off < start {
		off, trimmed = start, true
	}
	if off > r.total {
		off = r.total
	}
	size := int64(len(r.buf))
	data = make([]byte, r.total-off)
	for i := int64(0); i < int64(len(data)); {
		at := (off + i) % size
		i += int64(copy(data[i:], r.buf[at:]))
	}
	return data, off, r.total, trimmed
}

// Changed returns a channel that is closed at the next Write, so a follower can wait for
// new output without polling.
func (r *Ring) Changed() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.changed
}
