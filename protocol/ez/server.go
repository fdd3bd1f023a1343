// Package ez is the EZ debugger protocol (newline-delimited JSON commands and events on
// stdin/stdout, as the EZ IDE speaks it) as a front end of the engine, debugging Kite
// programs. It only translates: commands become engine.Session calls, engine events
// become EZ events.
//
// Commands are handled on the goroutine that reads them, as they arrive: a step is read,
// run and answered by one goroutine, with no hand-off to another thread. Events that come
// between commands (output, a breakpoint after continue) are written by Serve's goroutine.
// A lock keeps the two from interleaving lines, so events keep the engine's order.
package ez

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/fileload"
	"github.com/polydbg/polydbg/internal/wire"
	"github.com/polydbg/polydbg/internal/wirejson"
	"github.com/polydbg/polydbg/kite/syntax"
	"github.com/polydbg/polydbg/launch"
)

// Options configure a server.
type Options struct {
	// File is the program to debug when initialize names none (the command line's FILE).
	File string
	// WorkingDir resolves relative paths when initialize gives no workingDir; the
	// process's working directory when empty.
	WorkingDir string
	// MaxLine bounds a command line (MaxLine when 0).
	MaxLine int
	// Logger gets diagnostics (never the protocol stream); slog.Default() when nil.
	Logger *slog.Logger
}

// MaxProgram bounds the size of a program file.
const MaxProgram = fileload.MaxBytes

// shutdownWait bounds how long the end of input waits for the program to stop.
const shutdownWait = 5 * time.Second

// MaxQueued bounds the events waiting to be written. When the IDE stops reading, the
// program's output blocks once this many are queued (backpressure, as a terminal applies):
// memory stays bounded and nothing is lost.
const MaxQueued = 4096

// Serve runs one EZ debug session: it reads commands from in and writes events to out
// until in ends (the program is then terminated and Serve returns nil) or ctx is done.
// Serve returns an error only when out fails or in fails with something else than EOF.
// The reading goroutine ends when in reaches EOF or fails; a caller that cancels ctx
// should close in as well.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	srv := newServer(out, opts)
	go func() { srv.readDone <- srv.read(in) }()
	err := srv.pump(ctx)
	srv.closeSession()
	if cerr := srv.out.CloseFor(ctx); err == nil && cerr != nil && ctx.Err() == nil {
		err = fmt.Errorf("ez: writing events: %w", cerr)
	}
	return err
}

func newServer(out io.Writer, opts Options) *server {
	box := wire.NewOutbox(out)
	srv := &server{opts: opts, log: opts.Logger, out: box, w: bufio.NewWriterSize(box, 64<<10),
		kick: make(chan struct{}, 1), readDone: make(chan error, 1)}
	if srv.log == nil {
		srv.log = slog.Default()
	}
	return srv
}

type server struct {
	mu       sync.Mutex    // held while a command is handled or events are written
	kick     chan struct{} // a command loaded another program: the pump waits on it
	readDone chan error    // the reading goroutine's end (nil: the input ended)
	over     bool          // Serve is returning: commands are no longer handled

	opts Options
	log  *slog.Logger
	out  *wire.Outbox  // what the IDE reads: a flush never waits for it to read
	w    *bufio.Writer // events are encoded into its buffer, then moved to out
	werr error         // first write error: the IDE is gone

	sess *session
}

// session is one loaded program.
type session struct {
	s       *launch.Debuggee
	sub     *engine.Subscription
	ended   bool   // the subscription has delivered its last event
	handled uint64 // the last event written
	file    string // absolute path of the program
	workDir string

	reportedStop bool              // stopped was written and no resume followed
	stepping     bool              // the last resume was a step: report variable changes at the stop
	vars         engine.VarTracker // frame 0's variables when the step began
	terminateReq bool              // terminate was asked: report terminated even if it exited
	endSent      bool              // exited or terminated was written
}

// read handles the commands of in, each on this goroutine as it arrives, until in ends or
// fails, or Serve is over.
func (srv *server) read(in io.Reader) error {
	lr := wire.NewLineReader(in, srv.maxLine())
	for {
		line, err := lr.Next()
		srv.mu.Lock()
		if srv.over {
			srv.mu.Unlock()
			return nil
		}
		switch {
		case err == nil:
			srv.command(line)
		case errors.Is(err, wire.ErrLineTooLong):
			srv.send("error", errorData{Message: fmt.Sprintf("command line longer than %d bytes: skipped", srv.maxLine())})
		case errors.Is(err, io.EOF):
			srv.mu.Unlock()
			return nil
		default:
			srv.mu.Unlock()
			return fmt.Errorf("ez: reading commands: %w", err)
		}
		werr := srv.flush()
		srv.mu.Unlock()
		if werr != nil {
			return nil // the pump reports it
		}
	}
}

// command handles one command line (with srv.mu held) and writes what it made happen: a
// step has stopped when the engine returns, so its stop leaves with this write. The
// subscription is held meanwhile, so the pump is not woken for events taken here.
func (srv *server) command(line []byte) {
	var held *engine.Subscription
	if ss := srv.sess; ss != nil && !ss.ended {
		held = ss.sub
	}
	held.Hold()
	srv.handleLine(line)
	srv.drain()
	held.Release()
	if ss := srv.sess; ss != nil && ss.sub != held {
		select { // a new program: the pump waits on its events from now on
		case srv.kick <- struct{}{}:
		default:
		}
	}
}

// pump writes the events that come between commands, and ends the session when the input
// ends, ctx is done or a write fails.
func (srv *server) pump(ctx context.Context) error {
	for {
		var ready <-chan struct{}
		srv.mu.Lock()
		if ss := srv.sess; ss != nil && !ss.ended {
			ready = ss.sub.Ready()
		}
		srv.mu.Unlock()
		select {
		case <-srv.kick:
			continue
		case <-ready:
			srv.mu.Lock()
			srv.drain()
		case err := <-srv.readDone:
			srv.mu.Lock()
			defer srv.mu.Unlock()
			srv.over = true
			if srv.werr != nil {
				srv.log.Error("ez: writing events", "err", srv.werr)
				return fmt.Errorf("ez: writing events: %w", srv.werr)
			}
			srv.shutdown()
			if err != nil {
				srv.log.Error("ez: reading commands", "err", err)
				_ = srv.flush()
				return err
			}
			return srv.flush()
		case <-ctx.Done():
			srv.mu.Lock()
			defer srv.mu.Unlock()
			srv.over = true
			srv.shutdown()
			_ = srv.flush()
			return ctx.Err()
		}
		err := srv.flush()
		srv.over = err != nil
		srv.mu.Unlock()
		if err != nil {
			srv.log.Error("ez: writing events", "err", err)
			return fmt.Errorf("ez: writing events: %w", err)
		}
	}
}

func (srv *server) maxLine() int {
	if srv.opts.MaxLine > 0 {
		return srv.opts.MaxLine
	}
	return MaxLine
}

// send writes one event line (buffered; the loop flushes after each input or event).
func (srv *server) send(name string, data any) {
	if srv.werr != nil {
		return
	}
	// {"type":"event","event":NAME,"data":DATA}: the envelope written around the data, not
	// encoded from a struct holding it (one boxing and one reflection less per event).
	b := wirejson.AppendString(append(srv.w.AvailableBuffer(), `{"type":"event","event":`...), name)
	b = append(b, `,"data":`...)
	var err error
	switch d := data.(type) { // a step's events, written field by field
	case stoppedData:
		b = d.appendJSON(b)
	case variableUpdateData:
		b = d.appendJSON(b)
	default:
		b, err = wirejson.Append(b, data)
	}
	if err == nil {
		_, err = srv.w.Write(append(b, "}\n"...))
	}
	srv.werr = err
}

func (srv *server) flush() error {
	if srv.werr == nil {
		if srv.werr = srv.w.Flush(); srv.werr == nil {
			srv.werr = srv.out.Flush()
		}
	}
	return srv.werr
}

// fail answers a command that cannot be done.
func (srv *server) fail(cmd string, err error) {
	srv.log.Debug("ez: command failed", "command", cmd, "err", err)
	srv.send("error", errorData{Message: err.Error(), Command: cmd})
}

// shutdown ends the program at the end of input and writes the events that follow.
func (srv *server) shutdown() {
	ss := srv.sess
	if ss == nil {
		return
	}
	if !ss.s.State().Ended() {
		ss.terminateReq = true
		_ = ss.s.Terminate()
	}
	ctx, cancel := context.WithTimeout(context.Background(), shutdownWait)
	defer cancel()
	for !ss.ended {
		e, err := ss.sub.Next(ctx)
		if errors.Is(err, io.EOF) {
			ss.ended = true
			break
		}
		if err != nil {
			srv.log.Warn("ez: the program did not end in time")
			return
		}
		srv.handleEvent(e)
	}
}

// closeSession releases the current program, if any.
func (srv *server) closeSession() {
	if ss := srv.sess; ss != nil {
		srv.sess = nil
		ss.s.Unsubscribe(ss.sub)
		done := make(chan struct{})
		go func() { _ = ss.s.Close(); close(done) }()
		select {
		case <-done:
		case <-time.After(shutdownWait):
			srv.log.Warn("ez: the program did not end in time")
		}
	}
}

// drain writes every event the engine has queued. Events are queued the moment they
// happen, so after drain the IDE has been told everything up to the engine's state: a
// command handled next finds "started" and "stopped" already written before its reply.
// It stops at the events that happened after it began, so that a program printing
// without end cannot keep the server from reading commands.
func (srv *server) drain() { srv.drainTo(false) }

// catchUp drains, and once more if the program stopped or ended while it did, so that a
// command acts on a state the IDE has been told about (a stopped program prints nothing
// more, so this ends).
func (srv *server) catchUp() { srv.drainTo(true) }

func (srv *server) drainTo(toHalt bool) {
	if ss := srv.sess; ss != nil && !ss.ended {
		ss.handled, ss.ended = ss.sub.CatchUp(ss.s.Session, ss.handled, toHalt, srv.handleEvent)
	}
}

// resolvePath makes p absolute against the session's working directory.
func resolvePath(p, wd string) string {
	if p == "" {
		return ""
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(wd, p)
	}
	return filepath.Clean(p)
}

// load compiles the program and makes its session.
func (srv *server) load(p initializeParams) (*session, error) {
	wd := p.WorkingDir
	if wd == "" {
		wd = srv.opts.WorkingDir
	}
	if wd == "" {
		var err error
		if wd, err = os.Getwd(); err != nil {
			return nil, err
		}
	}
	wd = filepath.Clean(wd)
	file := p.File
	if file == "" {
		file = srv.opts.File
	}
	if file == "" {
		return nil, errors.New("Cannot initialize: no file given (params.file)")
	}
	file = resolvePath(file, wd)
	if err := fileload.Check(file); err != nil {
		return nil, fmt.Errorf("Cannot initialize: %w", err)
	}
	d, err := launch.Start(context.Background(), launch.Spec{Kind: launch.Kite, Program: file})
	if err != nil {
		return nil, err
	}
	sub := d.SubscribeWith(engine.SubscribeOptions{MaxQueued: MaxQueued})
	return &session{s: d, sub: sub, file: file, workDir: wd}, nil
}

// compileErrorData turns a compiler's error list into one error event.
func compileErrorData(err error) errorData {
	d := errorData{Message: err.Error(), Command: "initialize"}
	var list syntax.ErrorList
	if errors.As(err, &list) {
		for _, e := range list {
			d.Errors = append(d.Errors, compileError{Message: e.Msg,
				Location: location{File: e.File, Line: int(e.Pos.Line), Column: int(e.Pos.Col)}})
		}
		if len(d.Errors) > 0 {
			l := d.Errors[0].Location
			d.Location = &l
		}
	}
	return d
}
