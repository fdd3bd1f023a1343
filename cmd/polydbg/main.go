// Command polydbg is one debugger with many front ends: a terminal debugger, protocol
// servers for IDEs and agents, and runners for Kite programs and cartridges.
package main

import (
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sort"
)

// A command is one subcommand of the binary. Each lives in its own file and registers
// itself from init, so front ends can be added without touching this file.
type command struct {
	name    string
	summary string
	run     func(args []string) int
}

var commands = map[string]*command{}

func register(c *command) {
	if _, dup := commands[c.name]; dup {
		panic("polydbg: duplicate command " + c.name)
	}
	commands[c.name] = c
}

func main() {
	slog.SetDefault(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: logLevel()})))
	os.Exit(dispatch(os.Args[1:], os.Stderr))
}

func logLevel() slog.Level {
	if os.Getenv("POLYDBG_DEBUG") != "" {
		return slog.LevelDebug
	}
	return slog.LevelWarn
}

func dispatch(args []string, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(stderr, "polydbg: unknown command %q\n\n", args[0])
		usage(stderr)
		return 2
	}
	return c.run(args[1:])
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: polydbg COMMAND [arguments]")
	fmt.Fprintln(w, "\ncommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-12s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'polydbg COMMAND -h' for a command's flags.")
}

// parseInterspersed parses flags that may come before or after the positional arguments,
// and returns those. Everything after a "--" that is left after flag parsing is positional.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		if args[0] == "--" {
			return append(pos, args...), nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}
