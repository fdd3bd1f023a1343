package web

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/gdbcmd"
)

// maxGDBAnswer bounds the text of one gdb command's answer.
const maxGDBAnswer = 64 << 10

// gdbConsole is a session's gdb commands typed in its page: a guest debugger of the session
// (package gdbcmd), one command at a time, its value history kept from one to the next.
type gdbConsole struct {
	mu  sync.Mutex
	d   *gdbcmd.Debugger
	of  *engine.Session
	out bytes.Buffer
}

// gdb runs one of gdb's commands on the session and answers {output}: continue, next,
// step, finish and stepi resume the program as the buttons do; the commands that start,
// end or replace it are refused.
func (s *Server) gdb(w http.ResponseWriter, r *http.Request) {
	h := s.hubOr404(w, r)
	if h == nil || !s.authorized(w, r) {
		return
	}
	var req struct {
		Command string
		Frame   int
	}
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4096)).Decode(&req); err != nil {
		http.Error(w, "bad request: want {command}", http.StatusBadRequest)
		return
	}
	if mode, ok := gdbcmd.ResumeMode(req.Command); ok {
		if err := h.d.Resume(mode); err != nil {
			http.Error(w, err.Error(), http.StatusConflict)
			return
		}
		writeJSON(w, map[string]string{"output": ""})
		return
	}
	c := &h.gdb
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.d == nil || c.of != h.d.Session {
		c.d, c.of = gdbcmd.Attach(h.d.Session, gdbcmd.Config{Out: &c.out}), h.d.Session
	}
	c.out.Reset()
	c.d.SelectFrame(req.Frame)
	c.d.Exec(strings.TrimSpace(req.Command), true)
	out := c.out.String()
	if len(out) > maxGDBAnswer {
		out = out[:maxGDBAnswer] + "\n(output clipped)\n"
	}
	writeJSON(w, map[string]string{"output": out})
}
