package lantern

import (
	"bufio"
	"errors"
	"net"
	"strconv"

	"github.com/polydbg/polydbg/internal/tarball"
	"github.com/polydbg/polydbg/internal/upload"
)

// upload answers UPLOAD <size> [<exec_path>]. Errors found before the payload was read
// close the connection (what follows cannot be told apart from commands); errors found in
// the payload leave it open once the payload is consumed.
func (s *Server) upload(conn net.Conn, br *bufio.Reader, cmd command) (any, error) {
	if len(cmd.args) < 1 || len(cmd.args) > 2 {
		return nil, errClose{perr("invalid_arguments", "usage: UPLOAD <size> [<exec_path>]")}
	}
	size, err := strconv.ParseInt(cmd.args[0], 10, 64)
	if err != nil || size <= 0 {
		return nil, errClose{perr("invalid_size", "size must be a byte count > 0, got %q", cmd.args[0])}
	}
	if size > s.cfg.MaxBytes {
		return nil, errClose{perr("invalid_size", "size %d exceeds the limit of %d bytes", size, s.cfg.MaxBytes)}
	}
	bundle := len(cmd.args) == 2
	var execPath string
	if bundle {
		execPath, err = tarball.CleanPath(cmd.args[1])
		if err != nil || execPath == "." {
			return nil, errClose{perr("invalid_exec_path", "exec_path must be a relative path inside the bundle, got %q", cmd.args[1])}
		}
	}
	// A single binary holds its size; a bundle holds what it unpacks to, taken as it goes.
	hold := size
	if bundle {
		hold = 0
	}
	p, err := s.progs.Reserve(hold)
	if err != nil {
		return nil, errClose{reserveError(err)}
	}
	p.Bundle, p.ExecPath, p.Size = bundle, execPath, size
	ok := false
	defer func() {
		if ok {
			s.progs.Admit(p)
		} else {
			s.progs.Abandon(p)
		}
	}()
	u := &upload.Payload{Conn: conn, Buf: br, Left: size}
	if bundle {
		lim := tarball.Limits{MaxBytes: s.progs.Room(), MaxEntries: s.cfg.MaxEntries}
		p.Dir, _, err = u.Bundle(s.sup.BundleBase(p.ID), execPath, lim, func(n int64) bool { return s.progs.Grow(p, n) })
	} else {
		p.Exe, err = u.Binary("lantern-" + p.ID)
	}
	if err != nil {
		return nil, uploadError(err)
	}
	if err := p.SaveNew(); err != nil {
		return nil, perr("upload_write_failed", "saving the session: %v", err)
	}
	ok = true
	s.log.Info("lantern: upload", "id", p.ID, "size", size, "bundle", bundle)
	return uploadView{ID: p.ID, State: StateLoaded, Size: size, Bundle: bundle, ExecPath: execPath}, nil
}

// uploadError is a failed upload in the protocol's error form; the connection is closed
// when the payload was not read to its end.
func uploadError(err error) error {
	for _, c := range []struct {
		err  error
		code string
	}{
		{upload.ErrPayload, "upload_write_failed"}, {upload.ErrMemfd, "memfd_create_failed"},
		{upload.ErrNotELF, "invalid_elf"}, {upload.ErrTempDir, "tmpdir_create_failed"},
		{upload.ErrExtract, "extract_failed"}, {upload.ErrExecPath, "invalid_exec_path"},
	} {
		if errors.Is(err, c.err) {
			if c.err == upload.ErrPayload || c.err == upload.ErrMemfd {
				return errClose{perr(c.code, "%v", err)}
			}
			return perr(c.code, "%v", err)
		}
	}
	return errClose{perr("upload_write_failed", "%v", err)}
}

// uploadView is UPLOAD's answer, in the document's field order.
type uploadView struct {
	ID       string `json:"id"`
	State    string `json:"state"`
	Size     int64  `json:"size"`
	Bundle   bool   `json:"bundle,omitempty"`
	ExecPath string `json:"exec_path,omitempty"`
}
