package gdbremote

import (
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
)

// StopKind classifies a stop reply.
type StopKind int

const (
	StopSignal     StopKind = iota // "S" or "T": stopped with a signal
	StopExited                     // "W": exited with a status
	StopTerminated                 // "X": killed by a signal
	StopNoResumed                  // "N": no thread left to resume
	StopThreadExit                 // "w": a thread exited
	StopFileIO                     // "F": a File-I/O request from the target
)

// StopReply is a parsed stop reply packet.
type StopReply struct {
	Kind   StopKind
	Signal int // signal number (S, T, X), or exit status (W)
	// Regs are the expedited registers of a T reply, by target description number, in
	// target byte order.
	Regs map[int][]byte
	// Thread is the "thread" field of a T reply (may be "pP.T" with multiprocess).
	Thread string
	Core   int // -1 when not given
	// Reason is "swbreak", "hwbreak", "watch", "rwatch", "awatch", "library", "fork", ...
	// when the stub named one.
	Reason string
	// WatchAddr is the data address of a watchpoint stop.
	WatchAddr uint64
	// Syscall is the system call number of a "syscall_entry" or "syscall_return" stop
	// (QCatchSyscalls).
	Syscall int
	Pid     string // "process" field of W/X
	// Child is the new process's thread id of a "fork" or "vfork" stop ("pC.C").
	Child string
	// Exec is the program an "exec" stop's process now runs.
	Exec string
	Raw  string
}

// Exited reports whether the process is gone (W or X).
func (s StopReply) Exited() bool { return s.Kind == StopExited || s.Kind == StopTerminated }

// ParseStopReply parses S, T, W, X, N, w and F replies.
func ParseStopReply(r string) (StopReply, error) {
	s := StopReply{Raw: r, Core: -1}
	if r == "" {
		return s, fmt.Errorf("%w: empty stop reply", ErrGarbage)
	}
	bad := func(why string) (StopReply, error) {
		return s, fmt.Errorf("%w: stop reply %q: %s", ErrGarbage, truncs(r), why)
	}
	if r[0] == 'E' {
		if err := replyError("stop", r); err != nil {
			return s, err
		}
	}
	switch r[0] {
	case 'N':
		s.Kind = StopNoResumed
		return s, nil
	case 'F':
		s.Kind = StopFileIO
		return s, nil
	case 'S', 'T', 'W', 'X', 'w':
	default:
		return bad("unknown kind")
	}
	end := 3 // S and T: two hex digits
	if r[0] == 'W' || r[0] == 'X' || r[0] == 'w' {
		// gdbserver writes these numbers with %x: "w0;p1234.1235", "W0;process:1234"
		if end = strings.IndexByte(r, ';'); end < 0 {
			end = len(r)
		}
		if end < 2 || end > 3 {
			return bad("bad status")
		}
	}
	if len(r) < end {
		return bad("too short")
	}
	sig, err := strconv.ParseUint(r[1:end], 16, 8)
	if err != nil {
		return bad("signal is not hex")
	}
	s.Signal = int(sig)
	rest := r[end:]
	switch r[0] {
	case 'S':
		s.Kind = StopSignal
		return s, nil
	case 'W', 'X', 'w':
		s.Kind = map[byte]StopKind{'W': StopExited, 'X': StopTerminated, 'w': StopThreadExit}[r[0]]
		if p, ok := strings.CutPrefix(rest, ";process:"); ok {
			s.Pid = p
		} else if r[0] == 'w' {
			s.Thread = strings.TrimPrefix(rest, ";")
		}
		return s, nil
	}
	s.Kind = StopSignal
	for _, f := range strings.Split(rest, ";") {
		if f == "" {
			continue
		}
		k, v, ok := strings.Cut(f, ":")
		if !ok {
			return bad("field without ':'")
		}
		switch k {
		case "thread":
			s.Thread = v
		case "core":
			if n, err := strconv.ParseUint(v, 16, 32); err == nil {
				s.Core = int(n)
			}
		case "watch", "rwatch", "awatch":
			s.Reason = k
			if a, err := strconv.ParseUint(v, 16, 64); err == nil {
				s.WatchAddr = a
			}
		case "syscall_entry", "syscall_return":
			s.Reason = k
			if n, err := strconv.ParseUint(v, 16, 32); err == nil {
				s.Syscall = int(n)
			}
		case "fork", "vfork":
			s.Reason, s.Child = k, v
		case "exec":
			s.Reason = k
			if path, err := hex.DecodeString(v); err == nil {
				s.Exec = string(path)
			}
		case "swbreak", "hwbreak", "library", "replaylog", "vforkdone", "create", "no-resumed":
			s.Reason = k
		default:
			n, err := strconv.ParseUint(k, 16, 32)
			if err != nil {
				continue // an unknown named field: ignore as the manual asks
			}
			if v == "" {
				return bad("register without a value")
			}
			b, err := hex.DecodeString(v)
			if err != nil {
				if strings.Contains(v, "x") { // unavailable bytes
					if bb, err2 := decodeHexRegs(v); err2 == nil {
						b = bb
					} else {
						return bad("register value is not hex")
					}
				} else {
					return bad("register value is not hex")
				}
			}
			if s.Regs == nil {
				s.Regs = map[int][]byte{}
			}
			s.Regs[int(n)] = b
		}
	}
	return s, nil
}
