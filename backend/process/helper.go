package process

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"regexp"
	"strconv"
	"sync"
	"time"
)

// HelperSpec describes a helper process that polydbg waits for before using it: a stub
// that announces its port (gdbserver's "Listening on port N") or listens on a port chosen
// for it (QEMU's -gdb tcp:HOST:PORT).
type HelperSpec struct {
	Spec
	// Name is what the helper is, for messages ("gdbserver").
	Name string
	// Ready reports whether the helper's output so far shows it ready. When nil, the
	// helper is ready once something listens on Listen.
	Ready func(out []byte) bool
	// Listen is the address the helper was told to listen on (with Ready nil).
	Listen string
	// Timeout bounds the wait (default 10 s); the context may end it earlier.
	Timeout time.Duration
	// OnWaiting is called once if the helper is not ready after WaitNotice (a second),
	// with what is awaited, so that a user sees why nothing happens. When nil, the message
	// is logged with slog.
	OnWaiting func(msg string)
}

// WaitNotice is how long StartHelper waits before it says what it is waiting for.
const WaitNotice = time.Second

// DefaultHelperTimeout bounds the wait for a helper that has no Timeout.
const DefaultHelperTimeout = 10 * time.Second

// maxAnnounce bounds the output kept while waiting for a helper to announce itself.
const maxAnnounce = 64 << 10

// Helper is a started helper process that is ready.
type Helper struct {
	*Process
	announced []byte
}

// Announced returns what the helper wrote until it was ready (at most 64 KiB).
func (h *Helper) Announced() []byte { return h.announced }

// StartHelper starts the helper and returns once it is ready. When it exits first, the
// error carries its status and its error message; when it is not ready in time, it is
// killed. The helper's output still goes to Spec.OnOutput.
func StartHelper(ctx context.Context, hs HelperSpec) (*Helper, error) {
	if hs.Name == "" {
		hs.Name = hs.Path
	}
	var mu sync.Mutex
	var out []byte
	changed := make(chan struct{}, 1)
	user := hs.OnOutput
	hs.OnOutput = func(s Stream, b []byte) {
		mu.Lock()
		if len(out) < maxAnnounce {
			out = append(out, b[:min(len(b), maxAnnounce-len(out))]...)
		}
		mu.Unlock()
		select {
		case changed <- struct{}{}:
		default:
		}
		if user != nil {
			user(s, b)
		}
	}
	snapshot := func() []byte {
		mu.Lock()
		defer mu.Unlock()
		return bytes.Clone(out)
	}
	p, err := Start(hs.Spec)
	if err != nil {
		return nil, err
	}
	timeout := hs.Timeout
	if timeout <= 0 {
		timeout = DefaultHelperTimeout
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	notice := time.NewTimer(WaitNotice)
	defer notice.Stop()
	poll := time.NewTicker(5 * time.Millisecond)
	defer poll.Stop()
	what := hs.Name + " to say it is ready"
	if hs.Ready == nil {
		what = hs.Name + " to listen on " + hs.Listen
	}
	for {
		if ready(hs, snapshot()) {
			return &Helper{Process: p, announced: snapshot()}, nil
		}
		var pollC <-chan time.Time
		if hs.Ready == nil {
			pollC = poll.C
		}
		select {
		case <-changed:
		case <-pollC:
		case <-notice.C:
			msg := fmt.Sprintf("waiting for %s (pid %d)...", what, p.Pid())
			if hs.OnWaiting != nil {
				hs.OnWaiting(msg)
			} else {
				slog.Info(msg)
			}
		case <-p.Done():
			if got := snapshot(); hs.Ready != nil && hs.Ready(got) {
				continue // ready, and gone already: the caller sees it end
			}
			return nil, &ExitError{Name: hs.Name, Status: p.Wait(), Message: errorSummary(snapshot())}
		case <-deadline.C:
			p.Kill()
			return nil, fmt.Errorf("%s was not ready within %v: %s", hs.Name, timeout, errorSummary(snapshot()))
		case <-ctx.Done():
			p.Kill()
			return nil, fmt.Errorf("%s was not ready: %w", hs.Name, ctx.Err())
		}
	}
}

// ExitError is StartHelper's error when the helper exited before it was ready.
type ExitError struct {
	Name    string
	Status  Status
	Message string // the line of its output that says what went wrong
}

func (e *ExitError) Error() string {
	return fmt.Sprintf("%s exited (%v): %s", e.Name, e.Status, e.Message)
}

func ready(hs HelperSpec, out []byte) bool {
	if hs.Ready != nil {
		return hs.Ready(out)
	}
	// Do not connect: QEMU's stub serves one client and a probe would take its place.
	// The port is taken once binding it fails.
	l, err := net.Listen("tcp", hs.Listen)
	if err != nil {
		return true
	}
	l.Close()
	return false
}

var reFatal = regexp.MustCompile(`(?m)^(Can't bind address|Cannot attach|Exiting|.*[Ee]rror).*$`)

// errorSummary picks the line of a helper's output that says what went wrong (or all of
// it, trimmed, when no line looks like an error).
func errorSummary(out []byte) string {
	if m := reFatal.Find(out); m != nil {
		return string(bytes.TrimSpace(m))
	}
	out = bytes.TrimSpace(out)
	if len(out) > 4096 {
		out = out[len(out)-4096:]
	}
	if len(out) == 0 {
		return "no output"
	}
	return string(out)
}

var (
	reListening = regexp.MustCompile(`Listening on port (\d+)`)
	reCreated   = regexp.MustCompile(`(?:created|Attached); pid = (\d+)`)
)

// GdbserverListening is a HelperSpec.Ready for gdbserver: it reports whether the output
// says "Listening on port N".
func GdbserverListening(out []byte) bool { return reListening.Match(out) }

// GdbserverPort returns the N of gdbserver's "Listening on port N", or 0.
func GdbserverPort(out []byte) int {
	if m := reListening.FindSubmatch(out); m != nil {
		n, _ := strconv.Atoi(string(m[1]))
		return n
	}
	return 0
}

// GdbserverInferior returns the pid gdbserver reports for the program it runs or attached
// to ("Process P created; pid = N", "Attached; pid = N"), or 0.
func GdbserverInferior(out []byte) int {
	if m := reCreated.FindSubmatch(out); m != nil {
		n, _ := strconv.Atoi(string(m[1]))
		return n
	}
	return 0
}

// ErrNoPort is returned by FreePort when every port of the range is taken.
var ErrNoPort = errors.New("process: no free port")

// FreePort returns a port on host that can be bound now: any port the system picks when
// lo is 0, or else the first port of lo..hi that inUse (which may be nil) does not claim.
// Another process may still take it before the helper binds it; callers of helpers that
// listen on a given port retry on another when the helper exits.
func FreePort(host string, lo, hi int, inUse func(int) bool) (int, error) {
	if lo == 0 {
		l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
		if err != nil {
			return 0, fmt.Errorf("process: free port: %w", err)
		}
		defer l.Close()
		return l.Addr().(*net.TCPAddr).Port, nil
	}
	for p := lo; p <= hi; p++ {
		if inUse != nil && inUse(p) {
			continue
		}
		l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(p)))
		if err != nil {
			continue
		}
		l.Close()
		return p, nil
	}
	return 0, fmt.Errorf("%w in %d-%d", ErrNoPort, lo, hi)
}
