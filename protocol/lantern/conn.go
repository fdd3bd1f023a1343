package lantern

// One connection: authentication, command lines in, JSON answers (or errors) out.

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/polydbg/polydbg/internal/wire"
	"github.com/polydbg/polydbg/launch/supervise"
)

// protoError is an error answered in the protocol's error form.
type protoError struct {
	code, msg string
}

func (e *protoError) Error() string { return e.code + ": " + e.msg }

func perr(code, format string, a ...any) *protoError {
	return &protoError{code, fmt.Sprintf(format, a...)}
}

// errorBody is the document's error object.
func errorBody(code, msg string) map[string]any {
	return map[string]any{"ok": false, "error_code": code, "message": msg, "time": time.Now().UTC().Format(time.RFC3339)}
}

func writeJSON(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// errClose asks serveConn to close the connection after answering.
type errClose struct{ *protoError }

// serveConn serves one connection: one command line, one answer, in order.
func (s *Server) serveConn(c net.Conn, st *connState) {
	ended := false // the daemon ends the connection after an answer: the client must read it
	defer func() {
		if ended {
			wire.CloseGently(c)
		} else {
			c.Close()
		}
	}()
	lr := newLineReader(c, s.cfg.MaxLine)
	br := lr.Reader() // an upload's payload follows its line
	authed := st.authed
	for {
		if authed {
			c.SetReadDeadline(time.Now().Add(s.cfg.IdleTimeout))
		} else {
			c.SetReadDeadline(st.since.Add(s.cfg.AuthTimeout)) // not renewed by other lines
		}
		raw, err := lr.Next()
		if errors.Is(err, wire.ErrLineTooLong) {
			writeJSON(c, errorBody("line_too_long", fmt.Sprintf("command lines are limited to %d bytes", s.cfg.MaxLine)))
			ended = true
			return
		}
		if err != nil {
			return
		}
		cmd, err := parseCommand(string(raw))
		if err != nil {
			writeJSON(c, errorBody("invalid_command", err.Error()))
			continue
		}
		if cmd.name == "" {
			continue // blank lines are ignored
		}
		c.SetReadDeadline(time.Time{})
		if !authed {
			if cmd.name == "AUTH" && len(cmd.args) == 1 &&
				subtle.ConstantTimeCompare([]byte(cmd.args[0]), []byte(s.cfg.Token)) == 1 {
				if !s.authenticate(c, st) {
					writeJSON(c, errorBody("too_many_connections", "the daemon serves too many connections; try again later"))
					ended = true
					return
				}
				authed = true
				writeJSON(c, map[string]any{"ok": true})
				continue
			}
			writeJSON(c, errorBody("unauthorized", "send AUTH <token> first"))
			if cmd.name == "AUTH" || cmd.name == "UPLOAD" {
				// A wrong token ends the connection (no guessing at line rate); an
				// upload's payload cannot be told apart from commands.
				ended = true
				return
			}
			continue
		}
		var resp any
		var rerr error
		switch cmd.name {
		case "AUTH":
			resp = map[string]any{"ok": true}
		case "UPLOAD":
			resp, rerr = s.upload(c, br, cmd)
		case "SYSROOT":
			var f *os.File
			var size int64
			if f, size, rerr = s.sysroot(cmd); rerr == nil {
				_, err := fmt.Fprintf(c, "SYSROOT %d\n", size)
				if err == nil {
					_, err = io.CopyN(c, f, size)
				}
				f.Close()
				if err != nil {
					return
				}
				continue
			}
		default:
			resp, rerr = s.dispatch(cmd)
		}
		if rerr != nil {
			var ce errClose
			var pe *protoError
			switch {
			case errors.As(rerr, &ce):
				writeJSON(c, errorBody(ce.code, ce.msg))
				ended = true
				return
			case errors.As(rerr, &pe):
				if writeJSON(c, errorBody(pe.code, pe.msg)) != nil {
					return
				}
			default:
				s.log.Error("lantern: command failed", "command", cmd.name, "err", rerr)
				if writeJSON(c, errorBody("internal_error", rerr.Error())) != nil {
					return
				}
			}
			continue
		}
		if writeJSON(c, resp) != nil {
			return
		}
	}
}

// dispatch runs the commands that are one line in and one JSON value out.
func (s *Server) dispatch(cmd command) (any, error) {
	need := func(n int, usage string) error {
		if len(cmd.args) < n {
			return perr("invalid_arguments", "usage: %s", usage)
		}
		return nil
	}
	switch cmd.name {
	case "LIST":
		return s.list(), nil
	case "DEPS":
		return s.deps(), nil
	case "START":
		if err := need(1, "START <id> [--debug]"); err != nil {
			return nil, err
		}
		debug := false
		for _, a := range cmd.args[1:] {
			if a != "--debug" {
				return nil, perr("invalid_arguments", "unknown START option %q (only --debug)", a)
			}
			debug = true
		}
		return s.withSession(cmd.args[0], func(p *supervise.Program) (any, error) {
			v, err := p.Start(debug)
			return answer(p, v, err)
		})
	case "ARGS":
		if err := need(1, "ARGS <id> <arg1 arg2 ...>"); err != nil {
			return nil, err
		}
		return s.withSession(cmd.args[0], func(p *supervise.Program) (any, error) {
			p.SetArgs(cmd.rest(2))
			return view(p), nil
		})
	case "ENV":
		if err := need(2, "ENV <id> <KEY=VALUE>"); err != nil {
			return nil, err
		}
		kv := cmd.rest(2)
		k, v, ok := strings.Cut(kv, "=")
		if !ok || !validEnvKey(k) {
			return nil, perr("invalid_env", "expected KEY=VALUE with KEY made of letters, digits and _, not starting with a digit; got %q", kv)
		}
		return s.withSession(cmd.args[0], func(p *supervise.Program) (any, error) {
			p.SetEnv(k, v)
			return view(p), nil
		})
	case "ENVDEL":
		if err := need(2, "ENVDEL <id> <KEY>"); err != nil {
			return nil, err
		}
		return s.withSession(cmd.args[0], func(p *supervise.Program) (any, error) {
			p.DelEnv(cmd.args[1])
			return view(p), nil
		})
	case "ENVLIST":
		if err := need(1, "ENVLIST <id>"); err != nil {
			return nil, err
		}
		return s.withSession(cmd.args[0], func(p *supervise.Program) (any, error) { return p.EnvCopy(), nil })
	case "STOP", "KILL":
		if err := need(1, cmd.name+" <id>"); err != nil {
			return nil, err
		}
		return s.withSession(cmd.args[0], func(p *supervise.Program) (any, error) { return s.stop(p, cmd.name == "KILL") })
	case "DEBUG":
		if err := need(1, "DEBUG <id>"); err != nil {
			return nil, err
		}
		return s.withSession(cmd.args[0], s.debug)
	case "STATUS":
		if err := need(1, "STATUS <id>"); err != nil {
			return nil, err
		}
		return s.withSession(cmd.args[0], func(p *supervise.Program) (any, error) { return view(p), nil })
	case "DELETE":
		if err := need(1, "DELETE <id>"); err != nil {
			return nil, err
		}
		return s.withSession(cmd.args[0], s.delete)
	case "OUTPUT":
		if err := need(1, "OUTPUT <id> [<offset>]"); err != nil {
			return nil, err
		}
		var off int64
		if len(cmd.args) > 1 {
			var err error
			off, err = strconv.ParseInt(cmd.args[1], 10, 64)
			if err != nil || off < 0 {
				return nil, perr("invalid_offset", "offset must be a byte count >= 0, got %q", cmd.args[1])
			}
		}
		return s.withSession(cmd.args[0], func(p *supervise.Program) (any, error) { return output(p, off), nil })
	}
	return nil, perr("unknown_command", "unknown command %q", cmd.name)
}

func validEnvKey(k string) bool {
	if k == "" || (k[0] >= '0' && k[0] <= '9') {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}
