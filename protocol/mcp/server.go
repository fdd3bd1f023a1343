// Package mcp serves polydbg's debug sessions to AI agents over the Model Context Protocol,
// with the official Go SDK, on stdio or streamable HTTP. It translates tool calls to engine
// calls and starts debuggees only through package launch; it holds no debug logic. Every
// execution tool answers with the whole stop context (location, source, stack, locals,
// new output) so that an agent needs one call per step, and every answer is bounded in
// time and size.
package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/polydbg/polydbg/internal/wire"
)

// Options configure a server. The zero value is safe: Kite programs and cartridges only,
// no memory writes, secrets redacted.
type Options struct {
	// AllowExec lets agents start native programs and firmware and attach to GDB stubs:
	// they run real code on this machine or a device.
	AllowExec bool
	// AllowWrite lets agents write memory and registers and evaluate with side effects on
	// native and firmware targets.
	AllowWrite bool
	// NoRedact sends secrets as they are (environment variables with secret-looking names,
	// strings that look like keys).
	NoRedact bool
	// CallTimeout bounds every tool call (default 60s); execution tools wait at most this.
	CallTimeout time.Duration
	// MaxArgBytes bounds a tool call's arguments (default 1 MiB).
	MaxArgBytes int
	// MaxAnswerBytes bounds any one answer, whatever the client asks (default 256 KiB).
	MaxAnswerBytes int
	// Version is the server version announced to clients.
	Version string
	// Logger logs the SDK's activity (nil: none).
	Logger *slog.Logger
}

// Server is polydbg's MCP server. One Server serves any number of clients; each client
// owns the debug sessions it starts, which end when it disconnects.
type Server struct {
	opts    Options
	sdk     *sdk.Server
	redact  *redactor
	mu      sync.Mutex
	clients map[*sdk.ServerSession]*client
}

// protocolVersions are the versions served: those with an initialize handshake, whose
// connection (stdio, or an HTTP session) is what owns the debug sessions.
var protocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// New makes a server with every tool and resource.
func New(opts Options) *Server {
	if opts.CallTimeout <= 0 {
		opts.CallTimeout = 60 * time.Second
	}
	if opts.MaxArgBytes <= 0 {
		opts.MaxArgBytes = 1 << 20
	}
	if opts.MaxAnswerBytes <= 0 {
		opts.MaxAnswerBytes = 256 << 10
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	s := &Server{opts: opts, clients: map[*sdk.ServerSession]*client{}, redact: newRedactor(!opts.NoRedact)}
	s.sdk = sdk.NewServer(&sdk.Implementation{Name: "polydbg", Title: "polydbg debugger", Version: opts.Version},
		&sdk.ServerOptions{
			Instructions:              instructions,
			Logger:                    opts.Logger,
			SupportedProtocolVersions: protocolVersions,
			Capabilities:              &sdk.ServerCapabilities{},
			SubscribeHandler:          func(context.Context, *sdk.SubscribeRequest) error { return nil },
			UnsubscribeHandler:        func(context.Context, *sdk.UnsubscribeRequest) error { return nil },
		})
	s.sdk.AddReceivingMiddleware(s.guard)
	s.addTools()
	s.addResources()
	return s
}

const instructions = `polydbg debugs Kite programs, console cartridges, native Linux programs (gdbserver) and ` +
	`microcontroller firmware (QEMU or any GDB stub). Call start with a program (and breakpoints) to get a ` +
	`session id and its first stop; every execution tool (continue, step, next, finish, stepi, run_until, ` +
	`wait) answers with the whole stop context: reason, location with source lines, stack, frame 0's locals ` +
	`(marked new/changed), new program output. Close sessions you no longer need.`

// SDK returns the underlying SDK server (for transports the caller wires itself).
func (s *Server) SDK() *sdk.Server { return s.sdk }

// ServeStdio serves one client on in/out until it disconnects or ctx ends, then closes
// its debug sessions. Once ctx ends the client has wire.ShutdownGrace to read what is left;
// then out is closed, so that a client that stopped reading cannot hold the server (the
// SDK waits for the answers being written before it closes the connection). A write to out
// that waits for the client must return when out is closed (a pollable descriptor).
func (s *Server) ServeStdio(ctx context.Context, in io.ReadCloser, out io.WriteCloser) error {
	defer s.CloseAll()
	var mu sync.Mutex
	served := false
	stop := context.AfterFunc(ctx, func() {
		time.AfterFunc(wire.ShutdownGrace, func() {
			mu.Lock()
			defer mu.Unlock()
			if !served {
				out.Close()
			}
		})
	})
	defer func() {
		stop()
		mu.Lock()
		served = true
		mu.Unlock()
	}()
	err := s.sdk.Run(ctx, &sdk.IOTransport{Reader: in, Writer: out})
	if errors.Is(err, io.EOF) || errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// guard bounds every tool call: the size of its arguments, its time, and the size of its
// answer; and it redacts secrets from what goes out.
func (s *Server) guard(next sdk.MethodHandler) sdk.MethodHandler {
	return func(ctx context.Context, method string, req sdk.Request) (sdk.Result, error) {
		call, ok := req.(*sdk.CallToolRequest)
		if !ok || method != "tools/call" {
			return next(ctx, method, req)
		}
		if n := len(call.Params.Arguments); n > s.opts.MaxArgBytes {
			return errorResult(fmt.Sprintf("refused: the arguments are %d bytes; the limit is %d", n, s.opts.MaxArgBytes)), nil
		}
		ctx, cancel := context.WithTimeout(ctx, s.opts.CallTimeout)
		defer cancel()
		res, err := next(ctx, method, req)
		if err != nil {
			return res, err
		}
		if r, ok := res.(*sdk.CallToolResult); ok {
			s.redactResult(r)
			s.capResult(r)
		}
		return res, nil
	}
}

func errorResult(msg string) *sdk.CallToolResult {
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: msg}}}
}

// redactResult removes secrets from every text of a result.
func (s *Server) redactResult(r *sdk.CallToolResult) {
	if !s.redact.on {
		return
	}
	for _, c := range r.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			t.Text = s.redact.jsonOrText(t.Text)
		}
	}
	if raw, ok := r.StructuredContent.(json.RawMessage); ok {
		r.StructuredContent = json.RawMessage(s.redact.jsonOrText(string(raw)))
	}
}

// capResult replaces an answer over the hard limit with an error saying so.
func (s *Server) capResult(r *sdk.CallToolResult) {
	n := 0
	for _, c := range r.Content {
		if t, ok := c.(*sdk.TextContent); ok {
			n += len(t.Text)
		}
	}
	if raw, ok := r.StructuredContent.(json.RawMessage); ok {
		n += len(raw)
	}
	if n > s.opts.MaxAnswerBytes {
		*r = *errorResult(fmt.Sprintf("the answer is %d bytes, over the server's limit of %d: ask for less (maxBytes, count, length)", n, s.opts.MaxAnswerBytes))
	}
}

// progress sends a progress notification when the client asked for them.
func progress(ctx context.Context, req *sdk.CallToolRequest, step, total float64, msg string) {
	if req == nil || req.Session == nil {
		return
	}
	tok := req.Params.GetProgressToken()
	if tok == nil {
		return
	}
	_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: tok, Progress: step, Total: total, Message: msg})
}
