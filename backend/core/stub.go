package core

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/polydbg/polydbg/backend/gdbremote/rsp"
)

// Stub serves a core dump as a GDB stub on a loopback port, to one client: the threads,
// their registers, the memory, the auxiliary vector and the libraries. Nothing runs: a
// request to resume answers an error, writes are refused, breakpoints are accepted and
// never hit.
type Stub struct {
	Addr string // HOST:PORT to connect to

	core *File
	exe  string
	ln   net.Listener
	done chan struct{}
	once sync.Once
}

// acceptWait bounds how long the stub waits for its client.
const acceptWait = 30 * time.Second

// Serve starts serving c, whose program is the executable exe, on a free loopback port.
// The stub ends when its client disconnects or Close is called; it does not close c.
func Serve(c *File, exe string) (*Stub, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("core: %w", err)
	}
	s := &Stub{Addr: ln.Addr().String(), core: c, exe: exe, ln: ln, done: make(chan struct{})}
	go s.accept()
	return s, nil
}

// Close stops the stub.
func (s *Stub) Close() error {
	s.once.Do(func() { close(s.done) })
	return s.ln.Close()
}

func (s *Stub) accept() {
	if tl, ok := s.ln.(*net.TCPListener); ok {
		tl.SetDeadline(time.Now().Add(acceptWait))
	}
	conn, err := s.ln.Accept()
	s.ln.Close() // one client
	if err != nil {
		return
	}
	defer conn.Close()
	go func() { <-s.done; conn.Close() }()
	sess := &session{core: s.core, exe: s.exe, acks: true}
	r, w := bufio.NewReader(conn), bufio.NewWriter(conn)
	for {
		f, err := rsp.ReadFrame(r)
		if err != nil {
			return
		}
		switch f.Kind {
		case rsp.Ack, rsp.Nak:
			continue
		case rsp.BadChecksum:
			w.WriteString("-")
			w.Flush()
			continue
		}
		if sess.acks {
			w.WriteByte('+')
		}
		reply, end := sess.answer(string(f.Payload))
		w.Write(rsp.AppendFrame(nil, rsp.EscapeBinary(nil, []byte(reply))))
		if w.Flush() != nil || end {
			return
		}
	}
}

// session is the state of the stub's one client.
type session struct {
	core    *File
	exe     string
	acks    bool // the client has not turned acknowledgements off
	multi   bool // the client speaks multiprocess thread ids
	current int  // index of the selected thread
	libs    string
}

// answer is the reply to one packet, and whether the connection ends after it.
func (s *session) answer(p string) (reply string, end bool) {
	switch {
	case strings.HasPrefix(p, "qSupported"):
		s.multi = strings.Contains(p, "multiprocess+")
		f := "PacketSize=20000;qXfer:features:read+;qXfer:auxv:read+;qXfer:libraries-svr4:read+;QStartNoAckMode+"
		if s.multi {
			f += ";multiprocess+"
		}
		return f, false
	case p == "QStartNoAckMode":
		s.acks = false
		return "OK", false
	case p == "!":
		return "OK", false
	case p == "?":
		return s.stopReply(), false
	case p == "qC":
		return "QC" + s.threadID(s.current), false
	case p == "qAttached":
		return "1", false
	case p == "qfThreadInfo":
		ids := make([]string, len(s.core.Threads))
		for i := range ids {
			ids[i] = s.threadID(i)
		}
		return "m" + strings.Join(ids, ","), false
	case p == "qsThreadInfo":
		return "l", false
	case strings.HasPrefix(p, "H") && len(p) >= 2: // Hg, Hc and the thread
		return s.selectThread(p[2:]), false
	case strings.HasPrefix(p, "T"):
		if _, ok := s.thread(p[1:]); ok {
			return "OK", false
		}
		return "E01", false
	case p == "g":
		th := &s.core.Threads[s.current]
		var b strings.Builder
		for _, r := range regs {
			b.WriteString(hex.EncodeToString(r.value(th)))
		}
		return b.String(), false
	case strings.HasPrefix(p, "p"):
		n, err := strconv.ParseUint(p[1:], 16, 32)
		if err != nil || int(n) >= len(regs) {
			return "E00", false
		}
		return hex.EncodeToString(regs[n].value(&s.core.Threads[s.current])), false
	case strings.HasPrefix(p, "m"):
		return s.readMemory(p[1:]), false
	case strings.HasPrefix(p, "qXfer:"):
		return s.xfer(p), false
	case strings.HasPrefix(p, "Z0,") || strings.HasPrefix(p, "z0,"):
		return "OK", false // a breakpoint that is never reached
	case p == "k", p == "D", strings.HasPrefix(p, "D;"):
		return "OK", true
	case strings.HasPrefix(p, "c"), strings.HasPrefix(p, "s"), strings.HasPrefix(p, "C"), strings.HasPrefix(p, "S"),
		strings.HasPrefix(p, "vCont;"), strings.HasPrefix(p, "vRun"):
		return "E01", false // the program of a core does not run
	case strings.HasPrefix(p, "M"), strings.HasPrefix(p, "X"), strings.HasPrefix(p, "P"), strings.HasPrefix(p, "G"):
		return "E01", false // nor does its memory change
	}
	return "", false // not supported
}

// stopReply is the reason the program stopped: the signal that ended it, in its first thread.
func (s *session) stopReply() string {
	return fmt.Sprintf("T%02xthread:%s;", s.core.Signal()&0xff, s.threadID(s.current))
}

// threadID is thread i's id in the protocol: the thread's id, with the process's before it
// for a client that speaks multiprocess.
func (s *session) threadID(i int) string {
	tid := s.core.Threads[i].TID
	if s.multi {
		return fmt.Sprintf("p%x.%x", s.core.PID, tid)
	}
	return fmt.Sprintf("%x", tid)
}

// thread finds the thread of a protocol id ("p1a.1b", "1b", "-1", "0").
func (s *session) thread(id string) (int, bool) {
	if p, ok := strings.CutPrefix(id, "p"); ok {
		_, id, _ = strings.Cut(p, ".")
	}
	if id == "" || id == "-1" || id == "0" {
		return s.current, true
	}
	tid, err := strconv.ParseInt(id, 16, 64)
	if err != nil {
		return 0, false
	}
	for i, th := range s.core.Threads {
		if int64(th.TID) == tid {
			return i, true
		}
	}
	return 0, false
}

// selectThread is the reply to Hg/Hc.
func (s *session) selectThread(id string) string {
	i, ok := s.thread(id)
	if !ok {
		return "E01"
	}
	s.current = i
	return "OK"
}

// maxRead bounds one memory read.
const maxRead = 1 << 16

// readMemory is the reply to "m ADDR,LEN".
func (s *session) readMemory(args string) string {
	a, l, ok := strings.Cut(args, ",")
	addr, err1 := strconv.ParseUint(a, 16, 64)
	n, err2 := strconv.ParseUint(l, 16, 32)
	if !ok || err1 != nil || err2 != nil {
		return "E01"
	}
	b, err := s.core.ReadMemory(addr, int(min(n, maxRead)))
	if err != nil {
		return "E14" // EFAULT
	}
	return hex.EncodeToString(b)
}

// xfer is the reply to "qXfer:OBJECT:read:ANNEX:OFF,LEN".
func (s *session) xfer(p string) string {
	parts := strings.SplitN(p, ":", 5)
	if len(parts) != 5 || parts[2] != "read" {
		return ""
	}
	var doc string
	switch parts[1] {
	case "features":
		if parts[3] != "target.xml" {
			return "E00"
		}
		doc = targetXML
	case "auxv":
		doc = string(s.core.Auxv)
	case "libraries-svr4":
		if s.libs == "" {
			s.libs = s.core.LibrariesSVR4(s.exe)
		}
		doc = s.libs
	default:
		return ""
	}
	o, l, _ := strings.Cut(parts[4], ",")
	off, err1 := strconv.ParseUint(o, 16, 64)
	n, err2 := strconv.ParseUint(l, 16, 64)
	if err1 != nil || err2 != nil {
		return "E00"
	}
	if off >= uint64(len(doc)) {
		return "l"
	}
	end := min(uint64(len(doc)), off+n)
	if end == uint64(len(doc)) {
		return "l" + doc[off:end]
	}
	return "m" + doc[off:end]
}
