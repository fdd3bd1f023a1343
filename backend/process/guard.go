package process

import (
	"bufio"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"

	"golang.org/x/sys/unix"
)

// The guard ends the process groups a supervisor started when the supervisor dies, even by
// SIGKILL. PR_SET_PDEATHSIG only reaches a program's main process: the children it forks
// into its process group would live on. So the first Start also starts a guard: the same
// executable run again (see init), in its own process group, ignoring terminal signals,
// reading "+PGID" and "-PGID" lines from a pipe whose only writer is the supervisor. When
// the supervisor dies the kernel closes that pipe; the guard reads EOF and sends SIGKILL
// to every group still registered, then exits.
//
// A group is unregistered while its leader is still a zombie (before the supervisor reaps
// it), so the id cannot have been reused by an unrelated process; the pipe keeps the order
// of the lines, so the guard has read the "-PGID" before it reads the EOF.

// guardEnv set to "1" makes the executable run as a guard (see init).
const guardEnv = "POLYDBG_PROCESS_GUARD"

func init() {
	if os.Getenv(guardEnv) == "1" {
		runGuard()
		os.Exit(0)
	}
}

// runGuard is the guard process's whole life.
func runGuard() {
	signal.Ignore(syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGPIPE, syscall.SIGTSTP)
	groups := map[int]bool{}
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		line := sc.Text()
		if len(line) < 2 {
			continue
		}
		pgid, err := strconv.Atoi(line[1:])
		if err != nil || pgid <= 1 {
			continue
		}
		switch line[0] {
		case '+':
			groups[pgid] = true
		case '-':
			delete(groups, pgid)
		}
	}
	for pgid := range groups {
		_ = unix.Kill(-pgid, unix.SIGKILL)
	}
}

// guard is the supervisor's end of the guard process; a nil guard registers nothing.
type guard struct {
	pid    int
	mu     sync.Mutex
	w      *os.File
	broken bool
}

var (
	guardOnce sync.Once
	theGuard  atomic.Pointer[guard]
)

// startGuard returns the guard, starting it the first time. When it cannot be started the
// supervisor still works; only the SIGKILL cleanup is missing, which is logged once.
func startGuard() *guard {
	guardOnce.Do(func() {
		exe, err := os.Executable()
		if err != nil {
			slog.Warn("process: no guard for started programs (they may outlive a killed polydbg)", "err", err)
			return
		}
		r, w, err := os.Pipe() // close-on-exec: no other child inherits the write end
		if err != nil {
			slog.Warn("process: no guard for started programs", "err", err)
			return
		}
		cmd := exec.Command(exe)
		cmd.Env = append(os.Environ(), guardEnv+"=1")
		cmd.Stdin = r
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		err = cmd.Start()
		r.Close()
		if err != nil {
			w.Close()
			slog.Warn("process: no guard for started programs", "err", err)
			return
		}
		go cmd.Wait() // it ends when this process does (or if someone kills it)
		theGuard.Store(&guard{pid: cmd.Process.Pid, w: w})
	})
	return theGuard.Load()
}

// add registers the process group pgid and returns the function that unregisters it.
func (g *guard) add(pgid int) (remove func()) {
	if g == nil {
		return func() {}
	}
	g.send('+', pgid)
	return func() { g.send('-', pgid) }
}

func (g *guard) send(op byte, pgid int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.broken {
		return
	}
	if _, err := g.w.Write([]byte(string(op) + strconv.Itoa(pgid) + "\n")); err != nil {
		g.broken = true
		slog.Warn("process: the guard of started programs is gone", "err", err)
	}
}

// Guard registers a process group that a helper started (the program gdbserver runs in a
// group of its own), so that it is killed if this process dies. Call the returned function
// once the group is known to be gone, or while its leader is still unreaped.
func Guard(pgid int) (release func()) {
	if pgid <= 1 {
		return func() {}
	}
	return startGuard().add(pgid)
}

// GuardPid returns the process id of the guard, or 0 when none runs: it is a child of this
// process that is not a program (tests that count children leave it out).
func GuardPid() int {
	if g := theGuard.Load(); g != nil {
		return g.pid
	}
	return 0
}
