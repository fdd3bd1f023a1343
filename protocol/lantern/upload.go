package lantern

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/polydbg/polydbg/backend/process"
)

var elfMagic = []byte{0x7f, 'E', 'L', 'F'}

// uploadReader reads exactly the payload of an UPLOAD from the connection: first what the
// command reader already buffered, then the socket itself (so large copies into a file can
// use splice), with a fresh deadline for every chunk so a stalled client cannot hold a
// session slot forever.
type uploadReader struct {
	conn net.Conn
	br   *bufio.Reader
	left int64
}

func (u *uploadReader) Read(p []byte) (int, error) {
	if u.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > u.left {
		p = p[:u.left]
	}
	var n int
	var err error
	if u.br.Buffered() > 0 {
		n, err = u.br.Read(p)
	} else {
		u.conn.SetReadDeadline(time.Now().Add(uploadChunkTimeout))
		n, err = u.conn.Read(p)
	}
	u.left -= int64(n)
	if err == io.EOF && u.left > 0 {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

// copyTo writes the rest of the payload to f: the buffered part, then straight from the
// socket with splice (os.File.ReadFrom: the kernel moves the bytes from the socket into the
// memfd, with no copy through this process and no buffer of its own), uploadChunk at a time,
// each chunk with its own deadline. Two goroutines copying through 1 MiB buffers, the
// earlier way, reached 0.5 – 0.76 of a bare io.Copy into a memfd (which splices).
func (u *uploadReader) copyTo(f *os.File) (int64, error) {
	var total int64
	if b := u.br.Buffered(); b > 0 && u.left > 0 {
		n, err := io.CopyN(f, u.br, min(int64(b), u.left))
		total += n
		u.left -= n
		if err != nil {
			return total, err
		}
	}
	for u.left > 0 {
		u.conn.SetReadDeadline(time.Now().Add(uploadChunkTimeout))
		n, err := f.ReadFrom(io.LimitReader(u.conn, min(u.left, uploadChunk)))
		total += n
		u.left -= n
		if err == nil && n == 0 {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			return total, err
		}
	}
	return total, nil
}

// discard reads and drops what is left of the payload, so the connection stays in step.
func (u *uploadReader) discard() error {
	_, err := io.Copy(io.Discard, u)
	return err
}

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
		execPath, err = cleanRelPath(cmd.args[1])
		if err != nil || execPath == "." {
			return nil, errClose{perr("invalid_exec_path", "exec_path must be a relative path inside the bundle, got %q", cmd.args[1])}
		}
	}
	// A single binary holds its size; a bundle holds what it unpacks to, taken as it goes.
	hold := size
	if bundle {
		hold = 0
	}
	if err := s.reserve(hold); err != nil {
		return nil, errClose{err.(*protoError)}
	}
	s.mu.Lock()
	s.seq++
	ss := &session{id: s.newID(), seq: s.seq, created: time.Now(), srv: s, bundle: bundle, execPath: execPath,
		size: size, held: hold, state: StateLoaded, out: process.NewRing(s.cfg.OutputSize)}
	s.mu.Unlock()
	u := &uploadReader{conn: conn, br: br, left: size}
	ok := false
	defer func() {
		s.mu.Lock()
		s.pending--
		if ok {
			s.sessions[ss.id] = ss
		}
		s.mu.Unlock()
		if !ok {
			ss.release()
		}
	}()
	if bundle {
		err = s.receiveBundle(ss, u)
	} else {
		err = s.receiveBinary(ss, u)
	}
	if err != nil {
		return nil, err
	}
	if err := s.saveNew(ss); err != nil {
		return nil, perr("upload_write_failed", "saving the session: %v", err)
	}
	ok = true
	s.log.Info("lantern: upload", "id", ss.id, "size", size, "bundle", bundle)
	return uploadView{ID: ss.id, State: StateLoaded, Size: size, Bundle: bundle, ExecPath: execPath}, nil
}

func (s *Server) receiveBinary(ss *session, u *uploadReader) error {
	magic := make([]byte, min(int64(len(elfMagic)), u.left))
	if _, err := io.ReadFull(u, magic); err != nil {
		return errClose{perr("upload_write_failed", "reading the upload: %v", err)}
	}
	if !bytes.Equal(magic, elfMagic) {
		if err := u.discard(); err != nil {
			return errClose{perr("upload_write_failed", "reading the upload: %v", err)}
		}
		return perr("invalid_elf", "the upload does not start with the ELF magic (7f 45 4c 46)")
	}
	f, err := process.NewMemfd("lantern-" + ss.id)
	if err != nil {
		return errClose{perr("memfd_create_failed", "%v", err)}
	}
	ss.exe = f
	if _, err := f.Write(magic); err != nil {
		return errClose{perr("upload_write_failed", "%v", err)}
	}
	if _, err := u.copyTo(f); err != nil {
		return errClose{perr("upload_write_failed", "%v", err)}
	}
	if err := process.Seal(f); err != nil {
		return errClose{perr("upload_write_failed", "%v", err)}
	}
	return nil
}

func (s *Server) receiveBundle(ss *session, u *uploadReader) error {
	dir, err := os.MkdirTemp(s.bundleBase(ss.id), "bundle-")
	if err != nil {
		u.discard()
		return perr("tmpdir_create_failed", "%v", err)
	}
	ss.dir = dir
	s.mu.Lock()
	room := s.cfg.MaxBytes - s.bytes
	s.mu.Unlock()
	n, xerr := ExtractTarGz(u, dir, ExtractLimits{MaxBytes: room, MaxEntries: s.cfg.MaxEntries})
	if xerr == nil && !s.takeBytes(n) {
		xerr = fmt.Errorf("%w: unpacked size exceeds the daemon's byte budget", ErrUnsafeArchive)
	}
	if xerr == nil {
		ss.held = n
	}
	// Whatever happened, consume the rest of the payload (a tar ends before the gzip
	// stream, and a refused archive is not read further) to stay in step.
	if err := u.discard(); err != nil {
		return errClose{perr("upload_write_failed", "reading the upload: %v", err)}
	}
	if xerr != nil {
		return perr("extract_failed", "%v", xerr)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return perr("extract_failed", "%v", err)
	}
	defer root.Close()
	fi, err := root.Lstat(ss.execPath)
	if err != nil || !fi.Mode().IsRegular() {
		return perr("invalid_exec_path", "%q is not a regular file in the bundle", ss.execPath)
	}
	f, err := root.Open(ss.execPath)
	if err != nil {
		return perr("invalid_exec_path", "%v", err)
	}
	magic := make([]byte, 4)
	_, err = io.ReadFull(f, magic)
	f.Close()
	if err != nil || !bytes.Equal(magic, elfMagic) {
		return perr("invalid_elf", "%q is not an ELF file", ss.execPath)
	}
	if err := root.Chmod(ss.execPath, 0o700); err != nil {
		return perr("extract_failed", "%v", err)
	}
	return nil
}

// bundleBase is where a session's bundle is unpacked: the state directory when there is
// one (so it survives a restart), else the system's temporary directory.
func (s *Server) bundleBase(id string) string {
	if d := s.sessionDir(id); d != "" {
		if os.MkdirAll(d, 0o700) == nil {
			return d
		}
	}
	return os.TempDir()
}

// uploadView is UPLOAD's answer, in the document's field order.
type uploadView struct {
	ID       string `json:"id"`
	State    string `json:"state"`
	Size     int64  `json:"size"`
	Bundle   bool   `json:"bundle,omitempty"`
	ExecPath string `json:"exec_path,omitempty"`
}
