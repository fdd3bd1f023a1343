package dap

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	godap "github.com/google/go-dap"

	"github.com/polydbg/polydbg/console"
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/launch"
)

// launchArgs is the launch and attach configuration of the "polydbg" debug type: one
// field per launch.Spec option. Unknown fields are ignored (VS Code adds its own).
type launchArgs struct {
	// Kind is kite, cartridge, native, qemu or remote; empty: detected from program.
	Kind        string   `json:"kind,omitempty"`
	Program     string   `json:"program,omitempty"`
	Args        []string `json:"args,omitempty"`
	Cwd         string   `json:"cwd,omitempty"`
	Env         any      `json:"env,omitempty"`
	StopOnEntry bool     `json:"stopOnEntry,omitempty"`
	NoDebug     bool     `json:"noDebug,omitempty"`
	ELF         string   `json:"elf,omitempty"`
	Machine     string   `json:"machine,omitempty"`
	SVD         string   `json:"svd,omitempty"`
	Serial      []string `json:"serial,omitempty"`
	Seed        uint64   `json:"seed,omitempty"`
	// Address is HOST:PORT of a GDB stub to attach to (a lantern session's gdbserver port
	// too).
	Address string `json:"address,omitempty"`
	// ProcessID is a running process of this machine to attach to (VS Code's "processId",
	// as its C/C++ adapters name it).
	ProcessID int `json:"processId,omitempty"`
	// CoreDumpPath is a core dump of program to inspect after its end (launch; the name
	// VS Code's C/C++ adapter gives it).
	CoreDumpPath string `json:"coreDumpPath,omitempty"`
	Token        string `json:"token,omitempty"`
	// ThreadEvents false leaves a native program's threads to be seen at stops: live thread
	// events cost two brief stops per thread start and end.
	ThreadEvents *bool `json:"threadEvents,omitempty"`
	// SourceFileMap maps the directories the program was built in to where those files are
	// on this machine (VS Code's C/C++ adapter's "sourceFileMap").
	SourceFileMap map[string]string `json:"sourceFileMap,omitempty"`
	// DebugFileDirectory are where a stripped program's and its libraries' separate debug
	// files are looked for (gdb's debug-file-directory): absent, /usr/lib/debug; [] none.
	DebugFileDirectory []string `json:"debugFileDirectory,omitempty"`
	// FollowForkMode "child" debugs the child of each fork the program makes, letting the
	// parent go (gdb's follow-fork-mode); "parent" (the default) lets the child go.
	FollowForkMode string `json:"followForkMode,omitempty"`

	attach bool // the session attached: disconnect detaches
}

// launchTimeout bounds starting a target (QEMU, gdbserver, a stub's connection).
const launchTimeout = 30 * time.Second

// spec maps a configuration onto launch.Spec, refusing options it cannot honour rather
// than ignoring them.
func (a launchArgs) spec(attach bool) (launch.Spec, error) {
	s := launch.Spec{Kind: launch.Kind(a.Kind), Program: a.Program, Args: a.Args, ELF: a.ELF,
		Machine: a.Machine, Address: a.Address, SVD: a.SVD, QEMUSerial: a.Serial, Seed: a.Seed}
	s.Remote.NoThreadEvents = a.ThreadEvents != nil && !*a.ThreadEvents
	s.Remote.DebugDirs = a.DebugFileDirectory
	switch {
	case a.FollowForkMode != "" && a.FollowForkMode != "parent" && a.FollowForkMode != "child":
		return s, fmt.Errorf("followForkMode is \"parent\" or \"child\", not %q", a.FollowForkMode)
	case attach && a.ProcessID != 0 && a.Address != "":
		return s, errors.New("attach takes \"processId\" or \"address\", not both")
	case attach && a.ProcessID < 0:
		return s, fmt.Errorf("no process %d", a.ProcessID)
	case attach && a.ProcessID > 0:
		s.Kind, s.PID = launch.Attach, a.ProcessID
		if s.ELF == "" {
			s.ELF = s.Program // the process's executable when both are empty
		}
		s = s.Resolved()
		return s, a.placeNative(&s)
	case attach && a.Address == "":
		return s, errors.New("attach needs \"processId\" (a running process) or \"address\" (HOST:PORT of a GDB stub)")
	case attach:
		s.Kind = launch.Remote
	case a.CoreDumpPath != "":
		if s.Kind != "" && s.Kind != launch.Core && s.Kind != launch.Native {
			return s, fmt.Errorf("coreDumpPath is for native programs (this is %s)", s.Kind)
		}
		s.Kind, s.Core = launch.Core, a.CoreDumpPath
		return s.Resolved(), a.placeNative(&s)
	}
	if s.Program == "" && s.ELF == "" {
		return s, errors.New("nothing to debug: give \"program\" (or \"elf\")")
	}
	s = s.Resolved()
	return s, a.placeNative(&s)
}

// start handles launch and attach: it makes the debuggee (not yet running: configurationDone
// starts it), with progress events while a target starts.
func (c *conn) start(ctx context.Context, req *rawRequest, attach bool) (any, error) {
	if c.d != nil {
		return nil, errors.New("a debuggee is already launched on this connection")
	}
	var a launchArgs
	if len(req.Arguments) > 0 {
		if err := json.Unmarshal(req.Arguments, &a); err != nil {
			return nil, fmt.Errorf("bad configuration: %w", err)
		}
	}
	if !c.authed {
		if subtle.ConstantTimeCompare([]byte(a.Token), []byte(c.opts.Token)) != 1 {
			c.done = true // no guessing on one connection
			return nil, errors.New("unauthorized: the configuration's \"token\" is wrong")
		}
		c.authed = true
	}
	spec, err := a.spec(attach)
	if err != nil {
		return nil, err
	}
	id := "launch-" + strconv.Itoa(req.Seq)
	c.event("progressStart", godap.ProgressStartEventBody{ProgressId: id, RequestId: req.Seq,
		Title: "Starting " + string(spec.Kind) + " target", Cancellable: true, Message: spec.Program})
	c.flush() // shown while the target starts
	ctx, cancel := context.WithTimeout(ctx, launchTimeout)
	d, err := launch.Start(ctx, spec)
	cancel()
	c.event("progressEnd", godap.ProgressEndEventBody{ProgressId: id})
	if err != nil {
		return nil, err
	}
	if a.FollowForkMode == "child" && !d.FollowForkChild(true) {
		d.Close()
		return nil, fmt.Errorf("followForkMode \"child\": a %s target does not follow forks (native programs do)", spec.Kind)
	}
	a.attach = attach
	c.args, c.srcMap = a, newSourceMap(a.SourceFileMap)
	c.adopt(d)
	c.entry = launch.Sessions.Add(d, spec.Name(), c.opts.Owner)
	return nil, nil
}

// adopt makes d the connection's debuggee and subscribes to it.
func (c *conn) adopt(d *launch.Debuggee) {
	c.d = d
	if len(c.srcMap) > 0 {
		d.SetSourcePath(c.srcMap.rules())
	}
	if c.args.FollowForkMode == "child" { // (again after a restart)
		d.FollowForkChild(true)
	}
	c.sub = d.SubscribeWith(engine.SubscribeOptions{MaxQueued: MaxQueued})
	select { // the pump waits on the new subscription
	case c.subCh <- struct{}{}:
	default:
	}
	if d.Console != nil { // a cartridge's log() lines and certification warnings
		d.Console.SetEventHandler(func(e console.Event) {
			switch e.Kind {
			case console.EventLog:
				c.event("output", godap.OutputEventBody{Category: "console", Output: fmt.Sprintf("[%s] %s\n", e.Level, e.Msg)})
			case console.EventCert:
				c.event("output", godap.OutputEventBody{Category: "important",
					Output: fmt.Sprintf("frame %d: %s used %d of %d\n", e.FrameIndex, e.Rule, e.Used, e.Limit)})
			}
			c.flush() // from the console's goroutine, outside any request
		})
	}
}

// afterResponse sends what follows a response: "initialized" after launch or attach, and
// the capabilities the debuggee's kind adds.
func (c *conn) afterResponse(command string) {
	if (command == "launch" || command == "attach") && c.d != nil && !c.configured {
		for _, w := range c.d.LoadWarnings() { // what reading the program left out (a missing dwz file)
			c.event("output", godap.OutputEventBody{Category: "console", Output: w + "\n"})
		}
		c.event("capabilities", struct {
			Capabilities capabilities `json:"capabilities"`
		}{targetCapabilities(c.d)})
		c.event("initialized", nil)
	}
}

// configurationDone starts the debuggee.
func (c *conn) configurationDone() error {
	d, err := c.need()
	if err != nil {
		return err
	}
	if c.configured {
		return errors.New("configurationDone was already sent")
	}
	c.configured = true
	if c.args.NoDebug {
		d.SetExceptionStops(false)
	}
	return d.Start(c.args.StopOnEntry && !c.args.NoDebug)
}

// restart starts the program again with the same breakpoints (same ids) and watches.
func (c *conn) restart(ctx context.Context) error {
	d, err := c.need()
	if err != nil {
		return err
	}
	c.d.Unsubscribe(c.sub)
	c.sub = nil
	ctx, cancel := context.WithTimeout(ctx, launchTimeout)
	nd, err := d.Restart(ctx)
	cancel()
	if err != nil {
		c.d = nil
		if c.entry != nil {
			launch.Sessions.Remove(c.entry.ID)
			c.entry = nil
		}
		c.event("terminated", godap.TerminatedEventBody{})
		return fmt.Errorf("restart: %w", err)
	}
	c.adopt(nd)
	if c.entry != nil {
		launch.Sessions.Replace(c.entry.ID, nd)
	}
	return nd.Start(c.args.StopOnEntry)
}

// disconnect ends the connection: a launched debuggee is terminated (Serve closes it), an
// attached one is let go to run on (detached) unless terminateDebuggee asks otherwise.
func (c *conn) disconnect(ctx context.Context, a *godap.DisconnectArguments) error {
	c.done = true
	if c.d == nil {
		return nil
	}
	if c.args.attach && (a == nil || !a.TerminateDebuggee) {
		if err := c.d.Detach(ctx); err == nil {
			return nil
		} else {
			c.log.Debug("dap: detach failed; terminating", "err", err)
		}
	}
	_ = c.d.Terminate()
	return nil
}

// need returns the debuggee, or the error for requests that need one.
func (c *conn) need() (*launch.Debuggee, error) {
	if c.d == nil {
		return nil, errors.New("no debuggee: send launch or attach first")
	}
	return c.d, nil
}
