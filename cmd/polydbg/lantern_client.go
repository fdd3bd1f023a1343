package main

// `polydbg lantern VERB`: the client, its verbs and what they print.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/polydbg/polydbg/protocol/lantern"
)

// lanternCLI is the client side of `polydbg lantern`.
type lanternCLI struct {
	ctx            context.Context
	addr, token    string
	stdin          io.Reader
	stdout, stderr io.Writer
}

func (l *lanternCLI) dial() (*lantern.Client, error) {
	return lantern.Dial(l.addr, l.token, 10*time.Second)
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func (l *lanternCLI) run(verb string, args []string) (int, error) {
	fs := flag.NewFlagSet("polydbg lantern "+verb, flag.ContinueOnError)
	fs.SetOutput(l.stderr)
	// oneID parses the verb's flags and its one positional argument, a session id.
	oneID := func() (string, error) {
		pos, err := parseInterspersed(fs, args)
		if err != nil {
			return "", err
		}
		if len(pos) != 1 {
			return "", fmt.Errorf("usage: polydbg lantern %s ID", verb)
		}
		return pos[0], nil
	}
	switch verb {
	case "push":
		return l.push(fs, args)
	case "ls", "list":
		pos, err := parseInterspersed(fs, args)
		if err != nil || len(pos) != 0 {
			return 2, err
		}
		return l.ls()
	case "status", "stop", "kill", "rm", "delete", "debug":
		id, err := oneID()
		if err != nil {
			return 2, err
		}
		wire := map[string]string{"status": "STATUS", "stop": "STOP", "kill": "KILL", "rm": "DELETE", "delete": "DELETE", "debug": "DEBUG"}[verb]
		return l.simple(wire + " " + id)
	case "start":
		debug := fs.Bool("debug", false, "start under gdbserver")
		id, err := oneID()
		if err != nil {
			return 2, err
		}
		line := "START " + id
		if *debug {
			line += " --debug"
		}
		return l.simple(line)
	case "args":
		if len(args) < 1 {
			return 2, errors.New(`usage: polydbg lantern args ID "ARG ..."`)
		}
		return l.simple("ARGS " + args[0] + " " + strings.Join(args[1:], " "))
	case "env":
		return l.env(args)
	case "logs":
		follow := fs.Bool("f", false, "follow the output until the program ends")
		id, err := oneID()
		if err != nil {
			return 2, err
		}
		return l.logs(id, *follow)
	case "deps":
		return l.deps()
	case "sysroot":
		out := fs.String("o", "", "directory to unpack the sysroot into")
		if _, err := parseInterspersed(fs, args); err != nil {
			return 2, err
		}
		if *out == "" {
			return 2, errors.New("usage: polydbg lantern sysroot -o DIR")
		}
		return l.sysroot(*out)
	case "gdb":
		return l.gdb(fs, args)
	}
	fmt.Fprint(l.stderr, lanternUsage)
	return 2, fmt.Errorf("unknown verb %q", verb)
}

// simple sends one command and prints its JSON answer.
func (l *lanternCLI) simple(line string) (int, error) {
	c, err := l.dial()
	if err != nil {
		return 1, err
	}
	defer c.Close()
	raw, err := c.Do(line)
	if err != nil {
		return 1, err
	}
	fmt.Fprintf(l.stdout, "%s\n", raw)
	return 0, nil
}

func (l *lanternCLI) ls() (int, error) {
	c, err := l.dial()
	if err != nil {
		return 1, err
	}
	defer c.Close()
	var list []lantern.Session
	if err := c.DoInto("LIST", &list); err != nil {
		return 1, err
	}
	tw := tabwriter.NewWriter(l.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tPID\tDEBUG\tEXIT\tPROGRAM\tARGS")
	for _, s := range list {
		prog := "(binary)"
		if s.Bundle {
			prog = s.ExecPath
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", s.ID, s.State, intOrDash(s.PID), intOrDash(s.DebugPort), exitText(s), prog, s.Args)
	}
	tw.Flush()
	return 0, nil
}

func intOrDash(p *int) string {
	if p == nil {
		return "-"
	}
	return strconv.Itoa(*p)
}

func exitText(s lantern.Session) string {
	switch {
	case s.Signal != "":
		return s.Signal
	case s.ExitCode != nil:
		return strconv.Itoa(*s.ExitCode)
	case s.Ended != "":
		return s.Ended
	}
	return "-"
}

func (l *lanternCLI) env(args []string) (int, error) {
	if len(args) < 1 || len(args) > 2 {
		return 2, errors.New("usage: polydbg lantern env ID [K=V | -K]")
	}
	id := args[0]
	c, err := l.dial()
	if err != nil {
		return 1, err
	}
	defer c.Close()
	if len(args) == 2 {
		a := args[1]
		line := "ENV " + id + " " + a
		if strings.HasPrefix(a, "-") {
			line = "ENVDEL " + id + " " + a[1:]
		} else if !strings.Contains(a, "=") {
			return 2, fmt.Errorf("%q: want K=V to set or -K to remove", a)
		}
		if _, err := c.Do(line); err != nil {
			return 1, err
		}
	}
	var env map[string]string
	if err := c.DoInto("ENVLIST "+id, &env); err != nil {
		return 1, err
	}
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(l.stdout, "%s=%s\n", k, env[k])
	}
	return 0, nil
}

// logs prints a session's output; with follow it goes on (through OUTPUT offsets) until
// the program has ended and everything it wrote was printed, or ctx ends.
func (l *lanternCLI) logs(id string, follow bool) (int, error) {
	c, err := l.dial()
	if err != nil {
		return 1, err
	}
	defer c.Close()
	var off int64
	for {
		o, err := c.Output(id, off)
		if err != nil {
			return 1, err
		}
		if o.Trimmed {
			fmt.Fprintf(l.stderr, "[polydbg lantern: %d bytes of output were dropped before offset %d]\n", o.Offset-off, o.Offset)
		}
		io.WriteString(l.stdout, o.Output)
		off = o.Next
		if !follow {
			return 0, nil
		}
		if o.Next >= o.Total {
			s, err := c.Session("STATUS " + id)
			if err != nil {
				return 1, err
			}
			if s.State != lantern.StateRunning && s.State != lantern.StateDebugging {
				// One last read: output written just before the end.
				if o, err = c.Output(id, off); err == nil {
					io.WriteString(l.stdout, o.Output)
				}
				return 0, nil
			}
			select {
			case <-l.ctx.Done():
				return 0, nil
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}
