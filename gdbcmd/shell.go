package gdbcmd

import (
	"errors"
	"os"
	"os/exec"
	"strconv"

	"github.com/polydbg/polydbg/engine"
)

// cmdShell is gdb's shell COMMAND (and !COMMAND): the command run by /bin/sh, its output
// in order with the debugger's, its exit code in $_shell_exitcode. A guest refuses it.
func cmdShell(d *Debugger, args string) bool {
	sh := os.Getenv("SHELL")
	if sh == "" {
		sh = "/bin/sh"
	}
	cmd := exec.Command(sh)
	if args != "" {
		cmd = exec.Command(sh, "-c", args)
	}
	cmd.Stdout, cmd.Stderr = d.out, d.out
	code := 0
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			d.fail("Cannot execute %s: %v\n", sh, err)
			return false
		}
		code = exit.ExitCode()
	}
	d.values.SetConvenience("_shell_exitcode", engine.Variable{Name: "$_shell_exitcode", Value: strconv.Itoa(code), Type: "int"})
	return false
}

// cmdPwd is gdb's pwd: the debugger's working directory, where the program starts.
func cmdPwd(d *Debugger, args string) bool {
	if args != "" {
		d.fail("The \"pwd\" command does not take an argument: %s\n", args)
		return false
	}
	dir, err := os.Getwd()
	if err != nil {
		d.fail("Error finding name of working directory: %v\n", err)
		return false
	}
	d.printf("Working directory %s.\n", dir)
	return false
}
