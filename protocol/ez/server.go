// Package ez is the EZ debugger protocol (newline-delimited JSON commands and events on
// stdin/stdout, as the EZ IDE speaks it) as a front end of the engine, debugging Kite
// programs. It only translates: commands become engine.Session calls, engine events
// become EZ events.
//
// One goroutine (Serve's) writes every event, so lines never interleave and events keep
// the engine's order; a second goroutine only reads lines from the input.
package ez

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
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

// input is one item from the reader goroutine.
type input struct {
	line []byte
	err  error // wire.ErrLineTooLong, io.EOF or a read error
}

// Serve runs one EZ debug session: it reads commands from in and writes events to out
// until in ends (the program is then terminated and Serve returns nil) or ctx is done.
// Serve returns an error only when out fails or in fails with something else than EOF.
// The reader goroutine ends when in reaches EOF or fails; a caller that cancels ctx
// should close in as well.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	srv := &server{opts: opts, log: opts.Logger, w: bufio.NewWriterSize(out, 64<<10)}
	if srv.log == nil {
		srv.log = slog.Default()
	}
	lines := make(chan input)
	done := make(chan struct{})
	defer close(done)
	go func() {
		lr := wire.NewLineReader(in, srv.maxLine())
		for {
			line, err := lr.Next()
			line = bytes.Clone(line)
			select {
			case lines <- input{line: line, err: err}:
			case <-done:
				return
			}
			runtime.Gosched() // let the command run before this goroutine blocks reading again
			if err != nil && !errors.Is(err, wire.ErrLineTooLong) {
				return
			}
		}
	}()
	return srv.loop(ctx, lines)
}

type server struct {
	opts Options
	log  *slog.Logger
	w    *bufio.Writer
	werr error // first write error: the IDE is gone

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

	reportedStop bool                    // stopped was written and no resume followed
	stepping     bool                    // the last resume was a step: report variable changes at the stop
	before       []engine.ScopedVariable // frame 0's variables when the step began
	haveBefore   bool                    // before is valid
	terminateReq bool                    // terminate was asked: report terminated even if it exited
	endSent      bool                    // exited or terminated was written
}

func (srv *server) loop(ctx context.Context, lines <-chan input) error {
	defer srv.closeSession()
	for {
		var ready <-chan struct{}
		if ss := srv.sess; ss != nil && !ss.ended {
			ready = ss.sub.Ready()
		}
		select {
		case in := <-lines:
			switch {
			case in.err == nil:
				srv.handleLine(in.line)
			case errors.Is(in.err, wire.ErrLineTooLong):
				srv.send("error", errorData{Message: fmt.Sprintf("command line longer than %d bytes: skipped", srv.maxLine())})
			case errors.Is(in.err, io.EOF):
				srv.shutdown()
				return srv.flush()
			default:
				srv.log.Error("ez: reading commands", "err", in.err)
				srv.shutdown()
				_ = srv.flush()
				return fmt.Errorf("ez: reading commands: %w", in.err)
			}
		case <-ready:
			srv.drain()
		case <-ctx.Done():
			srv.shutdown()
			_ = srv.flush()
			return ctx.Err()
		}
		if err := srv.flush(); err != nil {
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
	if err := wirejson.WriteLine(srv.w, event{Type: "event", Event: name, Data: data}); err != nil {
		srv.werr = err
	}
}

func (srv *server) flush() error {
	if srv.werr == nil {
		srv.werr = srv.w.Flush()
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
func (srv *server) drain() {
	ss := srv.sess
	if ss == nil {
		return
	}
	upTo := ss.s.Seq()
	for !ss.ended {
		e, ok, ended := ss.sub.TryNext()
		if !ok {
			ss.ended = ended
			return
		}
		srv.handleEvent(e)
		ss.handled = e.Seq
		if e.Seq >= upTo {
			return
		}
	}
}

// catchUp drains, and once more if the program stopped or ended while it did, so that a
// command acts on a state the IDE has been told about (a stopped program prints nothing
// more, so this ends).
func (srv *server) catchUp() {
	srv.drain()
	for ss := srv.sess; ss != nil && !ss.ended && ss.handled < ss.s.LastHalt().Seq; {
		srv.drain()
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

// normPath is a path as compared: absolute, clean, symlinks resolved.
func normPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		p = r
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
