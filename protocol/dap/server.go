// Package dap serves the Debug Adapter Protocol, what VS Code, nvim-dap, Helix, Emacs dape,
// Zed and JetBrains speak, over every kind of debuggee polydbg has. It only translates:
// requests become engine.Session and launch calls, engine events become DAP events; the
// breakpoint table, stops and watches are the engine's. Message types and the codec are
// github.com/google/go-dap's; codec.go adds what it lacks from the current specification.
package dap

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"strconv"
	"sync"

	godap "github.com/google/go-dap"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/gdbcmd"
	"github.com/polydbg/polydbg/internal/wire"
	"github.com/polydbg/polydbg/internal/wirejson"
	"github.com/polydbg/polydbg/launch"
)

// MaxQueued bounds the engine events waiting to be written: when the client stops reading,
// the program's output blocks once this many are queued (backpressure, nothing lost).
const MaxQueued = 4096

// Options configure one connection.
type Options struct {
	// Token, when not empty, must be given as "token" in the launch or attach
	// configuration; until then only initialize is served, and a wrong token ends the
	// connection. Listening beyond loopback requires one (cmd/polydbg checks).
	Token string
	// MaxFrame bounds one message (MaxFrame when 0).
	MaxFrame int
	// Owner is the name the debuggee is registered under in launch.Sessions ("dap").
	Owner string
	// Log receives diagnostics (slog.Default when nil); never the protocol stream.
	Log *slog.Logger
}

// conn is one client connection and the debuggee it launched.
type conn struct {
	opts   Options
	codec  *godap.Codec
	log    *slog.Logger
	srcMap sourceMap // the launch's sourceFileMap

	// wmu guards the outgoing stream: messages are framed into out and written together by
	// flush (one write for a burst: a response and the stop that follows it). w never waits
	// for the client: one that writes requests before it reads the answers cannot stall
	// the reader.
	wmu      sync.Mutex
	w        *wire.Outbox
	wseq     int
	werr     error
	out      []byte
	scratch  []byte
	stepFrom uint64 // the request handled now stepped from the halt numbered so (c.mu held)

	// cppCatches are the catchpoints of the C++ exception filters that are on, by filter
	// (exceptions.go).
	cppCatches map[string]cppCatch

	// cancelled holds the seqs of requests a cancel request reached before they ran;
	// inflight cancels the request that runs. Both are shared with the reader goroutine.
	cmu       sync.Mutex
	cancelled map[int]bool
	inflight  int
	cancelRun context.CancelFunc

	// mu is held while a request is handled and while events are written, so that no
	// response overtakes an event the engine has already made; what follows it is the
	// handlers' and the event pump's.
	mu            sync.Mutex
	subCh         chan struct{} // signalled when sub changes
	quit          chan struct{} // closed once the session is over (disconnect, a wrong token)
	quitOnce      sync.Once
	closed        bool
	d             *launch.Debuggee
	sub           *engine.Subscription
	entry         *launch.Entry
	args          launchArgs
	authed        bool
	configured    bool
	ownContinues  int          // continued events caused by this client's requests: not echoed
	ownBreakpoint uint64       // breakpoint events up to this seq came from this client
	done          bool         // disconnect answered: stop reading
	gdb           gdbcmd.Guest // the debug console's gdb commands (-exec)

	// What lives for one stop (threads.go, goto.go, data.go, modules.go).
	thr   threadState             // the threads seen, and the frame-id slots of this stop
	gotos map[int]engine.Location // goto targets given out at this stop, by id
	calls map[int]stepTarget      // step-in targets given out at this stop, by id
	named map[int]bool            // references of the Locals and Globals scopes given out
	mods  engine.ModuleChanges    // the modules told to the client (modules.go)
	lives engine.ThreadChanges    // the threads told to the client (thread events)

	// A request that may take long (launch, attach, restart) runs in its own goroutine, so
	// that the reader goes on and a cancel request reaches it; requests that come meanwhile
	// wait in pending and are handled in order after it.
	lmu     sync.Mutex
	long    bool
	pending [][]byte
}

// Serve runs one DAP connection on r and w until the client disconnects, r ends or ctx is
// done. The debuggee it launched is closed (its processes killed) whatever the way out, and
// what was written has reached w when it returns. w is best a wire.TryWriter (see wire.Outbox).
func Serve(ctx context.Context, r io.Reader, w io.Writer, opts Options) error {
	if opts.MaxFrame <= 0 {
		opts.MaxFrame = MaxFrame
	}
	if opts.Owner == "" {
		opts.Owner = "dap"
	}
	c := &conn{opts: opts, codec: newCodec(), w: wire.NewOutbox(w), log: opts.Log, cancelled: map[int]bool{},
		authed: opts.Token == ""}
	if c.log == nil {
		c.log = slog.Default()
	}
	c.subCh, c.quit = make(chan struct{}, 1), make(chan struct{})
	ctx, stop := context.WithCancel(ctx)
	readErr := make(chan error, 1)
	go func() { readErr <- c.read(ctx, bufio.NewReaderSize(r, 64<<10)) }()
	go c.pump(ctx)
	var err error
	select {
	case <-ctx.Done():
	case <-c.quit:
	case err = <-readErr:
	}
	stop() // ends the pump and a request that waits (a target that starts)
	c.mu.Lock()
	c.closed = true
	c.closeDebuggee()
	c.mu.Unlock()
	if werr := c.w.CloseFor(ctx); werr != nil { // what the client has not read yet is written first
		c.log.Debug("dap: writing to the client", "err", werr)
	}
	return err
}

// read reads and handles frames until the input ends, a write fails or the session is over.
// It returns nil at the end of input.
func (c *conn) read(ctx context.Context, r *bufio.Reader) error {
	for {
		body, err := ReadFrame(r, c.opts.MaxFrame)
		var fe *FrameError
		switch {
		case errors.As(err, &fe):
			c.locked(func() { c.sendError(0, "", fe.Msg) })
		case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
			return nil
		case err != nil:
			return err
		default:
			words := quotedWords(body)
			if words&wordCancel != 0 {
				c.peekCancel(body)
			}
			c.lmu.Lock()
			if c.long { // behind a long request: handled after it
				c.pending = append(c.pending, body)
				c.lmu.Unlock()
				continue
			}
			if words&wordLong != 0 {
				c.long = true
				c.lmu.Unlock()
				go c.runLong(ctx, body)
				continue
			}
			c.lmu.Unlock()
			c.handle(ctx, body, false)
		}
		if err := c.writeErr(); err != nil {
			return err
		}
		select {
		case <-c.quit:
			return nil
		default:
		}
	}
}

// The quoted words of a frame that the reader looks for before decoding it, as flags.
const (
	wordLong   = 1 << iota // "launch", "attach" or "restart": may wait for a target to start
	wordCancel             // "cancel"
)

// quotedWords says which of the reader's words stand quoted as a value (after a colon) in
// body, in one pass over its bytes. A word found elsewhere than as the command (in an
// argument) is a false positive, which only costs a decode (cancel) or runs a request in
// its own goroutine (long).
func quotedWords(body []byte) int {
	found := 0
	for i := 1; i+1 < len(body); i++ {
		if body[i] != '"' || !afterColon(body[:i]) {
			continue
		}
		rest := body[i+1:]
		var word string
		flag := wordLong
		switch rest[0] {
		case 'l':
			word = "launch"
		case 'a':
			word = "attach"
		case 'r':
			word = "restart"
		case 'c':
			word, flag = "cancel", wordCancel
		default:
			continue
		}
		if len(rest) > len(word) && rest[len(word)] == '"' && string(rest[:len(word)]) == word {
			found |= flag
		}
	}
	return found
}

// runLong handles a long request, then the requests that came meanwhile.
func (c *conn) runLong(ctx context.Context, body []byte) {
	for {
		c.handle(ctx, body, true)
		c.lmu.Lock()
		if len(c.pending) == 0 {
			c.long = false
			c.lmu.Unlock()
			return
		}
		body = c.pending[0]
		c.pending = c.pending[1:]
		c.lmu.Unlock()
	}
}

// handle answers one frame, with the events before and after it. A Kite step has stopped
// when the engine returns; after a step of another target it lets the program run first,
// so that the stop's event usually leaves with the response, in one write.
func (c *conn) handle(ctx context.Context, body []byte, async bool) {
	c.locked(func() {
		if c.closed {
			return
		}
		// The events this request makes are drained here, below: the pump is not woken
		// for them (a thread switch a step, with another processor idle).
		held := c.sub
		held.Hold()
		defer held.Release()
		c.drain()
		c.handleFrame(ctx, body, async)
		c.drain()
		if c.stepFrom != 0 {
			// A Kite step has stopped already; another target's stop may come at once.
			// (Gosched wakes an idle processor's thread: only when still waiting.)
			for i := 0; i < 4 && c.d != nil && c.d.LastHalt().Seq <= c.stepFrom; i++ {
				runtime.Gosched()
			}
			c.stepFrom = 0
			c.drain()
		}
		if c.done {
			c.quitOnce.Do(func() { close(c.quit) })
		}
	})
}

// locked runs f with c.mu held, then writes out what f wrote.
func (c *conn) locked(f func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	defer c.flush()
	f()
}

// pump writes the engine's events as they come, between requests.
func (c *conn) pump(ctx context.Context) {
	for {
		c.mu.Lock()
		var ready <-chan struct{}
		if c.sub != nil {
			ready = c.sub.Ready()
		}
		c.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-c.subCh:
		case <-ready:
			c.locked(c.drain)
		}
	}
}

// afterColon reports whether b ends with a colon and, maybe, white space.
func afterColon(b []byte) bool {
	for i := len(b) - 1; i >= 0; i-- {
		switch b[i] {
		case ':':
			return true
		case ' ', '\t', '\n', '\r':
			continue
		}
		return false
	}
	return false
}

// peekCancel decodes a cancel request at once, before its turn, and cancels the request it
// names (or marks it cancelled, for when its turn comes).
func (c *conn) peekCancel(body []byte) {
	var m struct {
		Command   string                `json:"command"`
		Arguments godap.CancelArguments `json:"arguments"`
	}
	if json.Unmarshal(body, &m) != nil || m.Command != "cancel" || m.Arguments.RequestId == 0 {
		return
	}
	c.cmu.Lock()
	defer c.cmu.Unlock()
	if c.inflight == m.Arguments.RequestId && c.cancelRun != nil {
		c.cancelRun()
	} else {
		c.cancelled[m.Arguments.RequestId] = true
	}
}

// handleFrame decodes one message and answers it; bad input gets an error response. async
// says it runs beside the reader (a long request, or one queued behind it).
func (c *conn) handleFrame(ctx context.Context, body []byte, async bool) {
	msg, err := c.decode(body)
	var head struct {
		Seq     int    `json:"seq"`
		Type    string `json:"type"`
		Command string `json:"command"`
	}
	if req, ok := msg.(godap.RequestMessage); ok && err == nil {
		head.Seq, head.Type, head.Command = req.GetRequest().Seq, "request", req.GetRequest().Command
	} else if err := json.Unmarshal(body, &head); err != nil { // only bad messages are decoded twice
		seq, _ := wirejson.SalvageInt(body, "seq") // a request cut short still says which it was
		command, _ := wirejson.SalvageWord(body, "command")
		c.sendError(seq, command, "bad message: "+err.Error())
		return
	}
	if head.Type != "request" {
		c.sendError(head.Seq, head.Command, fmt.Sprintf("bad message: type %q (a client sends requests)", head.Type))
		return
	}
	if err != nil {
		var fe *godap.DecodeProtocolMessageFieldError
		if errors.As(err, &fe) {
			c.sendError(head.Seq, head.Command, fmt.Sprintf("unknown command %q", head.Command))
		} else {
			c.sendError(head.Seq, head.Command, fmt.Sprintf("bad arguments for %s: %v", head.Command, err))
		}
		return
	}
	c.cmu.Lock()
	skip := c.cancelled[head.Seq]
	delete(c.cancelled, head.Seq)
	rctx, cancel := ctx, context.CancelFunc(func() {})
	if async { // the reader reads on: a cancel request can reach it while it runs
		rctx, cancel = context.WithCancel(ctx)
	}
	c.inflight, c.cancelRun = head.Seq, cancel
	c.cmu.Unlock()
	defer func() {
		c.cmu.Lock()
		c.inflight, c.cancelRun = 0, nil
		c.cmu.Unlock()
		cancel()
	}()
	if skip {
		c.sendError(head.Seq, head.Command, "cancelled")
		return
	}
	body2, err := c.dispatch(rctx, msg)
	switch {
	case err != nil && rctx.Err() != nil && ctx.Err() == nil:
		c.sendError(head.Seq, head.Command, "cancelled")
	case err != nil:
		c.sendError(head.Seq, head.Command, err.Error())
	default:
		c.respond(head.Seq, head.Command, body2)
	}
	c.afterResponse(head.Command)
}

// next returns the next outgoing sequence number; wmu held.
func (c *conn) nextSeq() int { c.wseq++; return c.wseq }

// flushAt is what out may hold before it is written out within a burst (a drain of many
// output events).
const flushAt = 64 << 10

// begin starts a message in the scratch buffer: `{"seq":N,"type":"` (wmu held); false after a
// write error, when nothing more is written.
func (c *conn) begin() ([]byte, bool) {
	if c.werr != nil {
		return nil, false
	}
	b := append(c.scratch[:0], `{"seq":`...)
	b = strconv.AppendInt(b, int64(c.nextSeq()), 10)
	return append(b, `,"type":"`...), true
}

// end adds the body (left out when nil, as omitempty does) and frames the message into out
// (wmu held).
func (c *conn) end(b []byte, body any) {
	if body != nil {
		var err error
		if b, err = wirejson.Append(append(b, `,"body":`...), body); err != nil {
			c.log.Error("dap: encoding a message", "err", err)
			return
		}
	}
	c.frame(append(b, '}'))
}

// frame adds one message to out (wmu held).
func (c *conn) frame(b []byte) {
	c.scratch = b
	c.out = append(c.out, "Content-Length: "...)
	c.out = strconv.AppendInt(c.out, int64(len(b)), 10)
	c.out = append(append(c.out, "\r\n\r\n"...), b...)
	if len(c.out) >= flushAt {
		c.flushLocked()
	}
}

// flush writes out what was framed; the first write error ends the connection.
func (c *conn) flush() {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.flushLocked()
}

func (c *conn) flushLocked() {
	if len(c.out) > 0 && c.werr == nil {
		c.werr = c.w.Send(c.out) // at once when the pipe has room, else by the outbox's goroutine
	}
	c.out = c.out[:0]
	if cap(c.out) > 4*flushAt { // a burst of output: not kept
		c.out = nil
	}
}

func (c *conn) writeErr() error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	return c.werr
}

func response(seq, reqSeq int, command string) godap.Response {
	return godap.Response{ProtocolMessage: godap.ProtocolMessage{Seq: seq, Type: "response"},
		RequestSeq: reqSeq, Success: true, Command: command}
}

// respond answers a request with success; the envelope is go-dap's Response, written out
// by hand.
func (c *conn) respond(reqSeq int, command string, body any) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	b, ok := c.begin()
	if !ok {
		return
	}
	b = append(b, `response","request_seq":`...)
	b = strconv.AppendInt(b, int64(reqSeq), 10)
	b = wirejson.AppendString(append(b, `,"success":true,"command":`...), command)
	c.end(b, body)
}

// sendError answers a request with success false; the message is shown to the user.
func (c *conn) sendError(reqSeq int, command, msg string) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.werr != nil {
		return
	}
	r := response(c.nextSeq(), reqSeq, command)
	r.Success, r.Message = false, msg
	b, err := wirejson.Append(c.scratch[:0], &godap.ErrorResponse{Response: r, Body: godap.ErrorResponseBody{
		Error: &godap.ErrorMessage{Id: 1, Format: msg, ShowUser: true}}})
	if err != nil {
		c.log.Error("dap: encoding a message", "err", err)
		return
	}
	c.frame(b)
}

// event sends an event with a body (none when nil); the envelope is go-dap's Event.
func (c *conn) event(name string, body any) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	b, ok := c.begin()
	if !ok {
		return
	}
	b = wirejson.AppendString(append(b, `event","event":`...), name)
	c.end(b, body)
}

// closeDebuggee ends the debuggee and unregisters it.
func (c *conn) closeDebuggee() {
	if c.d == nil {
		return
	}
	if c.sub != nil {
		c.d.Unsubscribe(c.sub)
	}
	if err := c.d.Close(); err != nil {
		c.log.Debug("dap: closing the debuggee", "err", err)
	}
	if c.entry != nil {
		launch.Sessions.Remove(c.entry.ID)
	}
	c.d, c.sub, c.entry = nil, nil, nil
}
