package web

import (
	"encoding/json"
	"net/http"

	"github.com/polydbg/polydbg/gdbcmd"
)

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
	out := h.gdb.Run(h.d.Session, req.Frame, req.Command)
	writeJSON(w, map[string]string{"output": out})
}
