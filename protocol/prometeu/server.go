// Package prometeu is the Prometeu DevTools server: JSON lines over TCP between the
// fantasy console (package console) and debuggers. It translates requests into engine
// calls and the engine's and the console's events into messages; the debugging itself is
// the engine's.
package prometeu

import (
	"bufio"
	"errors"
	"log/slog"
	"net"
	"path/filepath"
	"sync"
	"time"

	"github.com/polydbg/polydbg/console"
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/wire"
)

// ProtocolVersion and RuntimeVersion are sent in the handshake.
const (
	ProtocolVersion = 1
	RuntimeVersion  = "0.1.0"
)

// MaxLine is the longest request line; a longer one gets an error response and is skipped.
const MaxLine = 1 << 20

// maxQueue is how many messages may wait for a client; a client that falls that far
// behind is disconnected so that it cannot hold the console back.
const maxQueue = 1 << 16

// Options configure a server.
type Options struct {
	// Waiting says that the session was started stopped on entry (--wait): the first
	// start request resumes it.
	Waiting bool
	// AppMode is the app_mode of the handshake ("Debug" for a runtime started for
	// debugging; the manifest's mode when empty).
	AppMode string
	// Token, when set, must be given as "token" in the client's start/ok answer to the
	// handshake; it is required when the server listens beyond loopback.
	Token  string
	Logger *slog.Logger
}

// Server serves one console session to any number of clients.
type Server struct {
	sess *engine.Session
	sub  *engine.Subscription
	con  *console.Console
	opts Options
	log  *slog.Logger

	// order makes a request's response precede the events its action causes: a request
	// is handled and answered, and an event is delivered, while holding it.
	order sync.Mutex

	mu        sync.Mutex
	clients   map[*client]struct{}
	listeners []net.Listener
	waiting   bool
	closed    bool

	wg     sync.WaitGroup
	events sync.WaitGroup
}

// New makes a server for a console's session. Call it before the session starts, so that
// no event is missed.
func New(sess *engine.Session, con *console.Console, opts Options) *Server {
	s := &Server{sess: sess, con: con, opts: opts, log: opts.Logger, clients: map[*client]struct{}{},
		waiting: opts.Waiting}
	if s.log == nil {
		s.log = slog.Default()
	}
	con.SetEventHandler(s.consoleEvent)
	s.sub = sess.Subscribe()
	s.events.Add(1)
	go s.engineEvents(s.sub)
	return s
}

// Serve accepts clients on ln until Close.
func (s *Server) Serve(ln net.Listener) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ln.Close()
		return net.ErrClosed
	}
	s.listeners = append(s.listeners, ln)
	s.wg.Add(1)
	s.mu.Unlock()
	defer s.wg.Done()
	for {
		conn, err := ln.Accept()
		if err != nil {
			s.mu.Lock()
			closed := s.closed
			s.mu.Unlock()
			if closed {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				time.Sleep(10 * time.Millisecond)
				continue
			}
			return err
		}
		s.addClient(conn)
	}
}

// Close stops accepting, delivers what is queued to each client (waiting at most
// timeout) and disconnects them.
func (s *Server) Close(timeout time.Duration) error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	for _, ln := range s.listeners {
		ln.Close()
	}
	clients := make([]*client, 0, len(s.clients))
	for c := range s.clients {
		clients = append(clients, c)
	}
	s.mu.Unlock()
	// Every client at once, with one deadline: shutdown never waits on one client's
	// writes, nor on requests it had sent before (readLoop stops at the next one).
	deadline := time.Now().Add(timeout)
	var fin sync.WaitGroup
	for _, c := range clients {
		fin.Go(func() { c.finish(deadline) })
	}
	fin.Wait()
	s.wg.Wait()
	return nil
}

// Clients is the number of connected clients.
func (s *Server) Clients() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.clients)
}

// broadcast sends an event to every client that has answered the handshake.
func (s *Server) broadcast(msg []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.clients {
		if c.isReady() {
			c.send(msg)
		}
	}
}

func (s *Server) addClient(conn net.Conn) {
	c := &client{s: s, conn: conn, q: wire.NewQueue[[]byte](maxQueue), done: make(chan struct{})}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		conn.Close()
		return
	}
	s.clients[c] = struct{}{}
	s.wg.Add(2)
	s.mu.Unlock()
	c.send(s.handshake())
	go c.writeLoop()
	go c.readLoop()
}

func (s *Server) removeClient(c *client) {
	s.mu.Lock()
	delete(s.clients, c)
	s.mu.Unlock()
}

// client is one connection. Its messages wait in a bounded queue that its writer drains,
// so a slow client never blocks the console or the other clients.
type client struct {
	s    *Server
	conn net.Conn
	q    *wire.Queue[[]byte] // closed when the client is closing: what is queued still goes
	done chan struct{}       // closed when the writer has ended

	mu      sync.Mutex
	ready   bool // answered the handshake
	closing bool // write what is queued, then close
	gone    bool
}

func (c *client) isReady() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ready
}

func (c *client) setReady() {
	c.mu.Lock()
	c.ready = true
	c.mu.Unlock()
}

// send queues msg; a client whose queue is full is disconnected.
func (c *client) send(msg []byte) {
	if !c.q.Push(msg) && !c.stopped() {
		c.s.log.Warn("prometeu: disconnecting a client that does not read", "remote", c.conn.RemoteAddr())
		go c.close() // not here: the caller may hold the server's lock
	}
}

// stopped reports whether the client is being closed (by Close or for not reading).
func (c *client) stopped() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closing || c.gone
}

// close drops the connection at once.
func (c *client) close() {
	c.mu.Lock()
	if c.gone {
		c.mu.Unlock()
		return
	}
	c.gone = true
	c.mu.Unlock()
	c.q.Close() // wakes the writer, which sees gone
	c.conn.Close()
	c.s.removeClient(c)
}

// finish writes what is queued (until deadline) and closes the connection.
func (c *client) finish(deadline time.Time) {
	c.mu.Lock()
	c.closing = true
	c.mu.Unlock()
	_ = c.conn.SetWriteDeadline(deadline)
	c.q.Close()
	select {
	case <-c.done:
	case <-time.After(time.Until(deadline) + 100*time.Millisecond):
	}
	c.close()
}

func (c *client) writeLoop() {
	defer c.s.wg.Done()
	defer close(c.done)
	w := bufio.NewWriter(c.conn)
	for {
		<-c.q.Wait()
		for {
			c.mu.Lock()
			gone := c.gone
			c.mu.Unlock()
			batch, _, closing := c.q.Take()
			if gone {
				return
			}
			if len(batch) == 0 {
				if closing {
					return
				}
				break
			}
			for _, m := range batch {
				w.Write(m)
				w.WriteByte('\n')
			}
			if err := w.Flush(); err != nil {
				c.close()
				return
			}
		}
	}
}

func (c *client) readLoop() {
	defer c.s.wg.Done()
	defer c.close()
	r := wire.NewLineReader(c.conn, MaxLine)
	for {
		if c.stopped() {
			return // shutting down: requests already buffered are not worth answering
		}
		line, err := r.Next()
		if errors.Is(err, wire.ErrLineTooLong) {
			c.send(errorResponse(nil, "", "request line longer than 1 MiB; it was skipped"))
			continue
		}
		if line != nil {
			c.handleLine(line)
		}
		if err != nil {
			return
		}
	}
}

// relFile names a source file relative to the cartridge's directory.
func (s *Server) relFile(file string) string {
	if file == "" {
		return ""
	}
	if rel, err := filepath.Rel(s.con.Cartridge().Dir, file); err == nil && filepath.IsLocal(rel) {
		return filepath.ToSlash(rel)
	}
	return file
}
