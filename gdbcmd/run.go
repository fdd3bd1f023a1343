package gdbcmd

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/polydbg/polydbg/engine"
)

// How the next run starts the program: its arguments and environment, as gdb's run ARGS,
// set args, show args, set environment, unset environment and show environment keep them.

// Run is how a session's program is started: its arguments, its environment and the
// redirections of its input and output.
type Run struct {
	Program string // the program to run, when not the one the debugger was given (an exec ran it)
	Args    []string
	Env     []string // the complete environment ("NAME=value"); nil: the debugger's own
	Redirect
}

// runSettings is what the next run gives the program, and what the session's was given.
type runSettings struct {
	args     []string
	argsText string // as given to run or set args: what show args says
	argsSet  bool   // changed by run ARGS or set args since the debugger started
	env      []string
	envSet   bool     // changed by set or unset environment
	redirect Redirect // run ARGS < IN > OUT: from the next run on
	program  string   // the program the last exec ran: run from the next run on, as gdb's
	inUse    Run      // the current session's
	change   bool     // the next run differs from inUse: it makes a new session
}

// setArgs makes text the program's arguments from the next run on (run ARGS, set args).
// Without NewSessionFor the program's arguments are fixed: only the same ones are taken.
func (d *Debugger) setArgs(text string) error {
	rest, redirect, err := splitRedirections(text)
	if err != nil {
		return err
	}
	words, err := shellWords(rest)
	if err != nil {
		return err
	}
	if d.cfg.NewSessionFor == nil && (!slices.Equal(words, d.nextRun().Args) || redirect != Redirect{}) {
		return fmt.Errorf("The program's arguments cannot be changed here (a program with none, or given to polydbg when it started).")
	}
	d.startup.args, d.startup.argsText, d.startup.argsSet = words, text, true
	d.startup.redirect = redirect
	d.noteRunChange()
	return nil
}

// nextRun is how the next run starts the program.
func (d *Debugger) nextRun() Run {
	r := Run{Program: d.startup.program, Args: d.cfg.Args, Redirect: d.startup.redirect}
	if d.startup.argsSet {
		r.Args = d.startup.args
	}
	if d.startup.envSet {
		r.Env = d.startup.env
	}
	return r
}

// noteRunChange says whether the next run needs a new session.
func (d *Debugger) noteRunChange() {
	next := d.nextRun()
	d.startup.change = !slices.Equal(next.Args, d.startup.inUse.Args) || !slices.Equal(next.Env, d.startup.inUse.Env) ||
		next.Redirect != d.startup.inUse.Redirect
}

// argsText is show args's text: as given to set args or run, or the start's words as a
// shell would read them back (gdb's "with\\ space").
func (d *Debugger) argsText() string {
	if d.startup.argsSet {
		return d.startup.argsText
	}
	quoted := make([]string, len(d.cfg.Args))
	for i, w := range d.cfg.Args {
		quoted[i] = shellQuote(w)
	}
	return strings.Join(quoted, " ")
}

// shellQuote is word with a backslash before each character a shell would take for its
// own, as gdb joins the arguments it was started with; ” for an empty one.
func shellQuote(word string) string {
	if word == "" {
		return "''"
	}
	var b strings.Builder
	for i := 0; i < len(word); i++ { // bytes: a word need not be UTF-8
		if strings.IndexByte(" \t\n\"'\\$`!#&*()|[]{}<>?;~", word[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(word[i])
	}
	return b.String()
}

// makeSession makes a fresh session of the program, started as the next run says.
func (d *Debugger) makeSession() (*engine.Session, error) {
	if d.cfg.NewSessionFor == nil {
		return d.cfg.NewSession()
	}
	if d.s != nil && d.s.ExecedProgram() != "" { // gdb runs what the exec ran
		d.startup.program = d.s.ExecedProgram()
	}
	next := d.nextRun()
	s, err := d.cfg.NewSessionFor(next)
	if err == nil {
		d.startup.inUse, d.startup.change = next, false
	}
	return s, err
}

// environment is the program's environment from the next run on, to be changed: the
// debugger's own until set or unset environment changed it.
func (d *Debugger) environment() []string {
	if !d.startup.envSet {
		d.startup.env, d.startup.envSet = os.Environ(), true
	}
	return d.startup.env
}

// setEnvironment is gdb's set environment NAME [=] VALUE.
func (d *Debugger) setEnvironment(args string) {
	if d.cfg.NewSessionFor == nil {
		d.fail("The program's environment cannot be changed here (a program that is not run by polydbg).\n")
		return
	}
	if args == "" {
		d.fail("Argument required (environment variable and value).\n")
		return
	}
	name, value := args, ""
	if i := strings.IndexAny(args, "= \t"); i >= 0 {
		name, value = args[:i], strings.TrimSpace(args[i:])
		value = strings.TrimSpace(strings.TrimPrefix(value, "="))
	}
	if name == "" {
		d.fail("Argument required (environment variable to set).\n")
		return
	}
	if value == "" {
		d.printf("Setting environment variable \"%s\" to null value.\n", name)
	}
	env := slices.DeleteFunc(slices.Clone(d.environment()), func(kv string) bool { return strings.HasPrefix(kv, name+"=") })
	d.startup.env = append(env, name+"="+value)
	d.noteRunChange()
}

// unsetEnvironment is gdb's unset environment [NAME]: one variable, or all of them after
// gdb's question.
func (d *Debugger) unsetEnvironment(name string) {
	if d.cfg.NewSessionFor == nil {
		d.fail("The program's environment cannot be changed here (a program that is not run by polydbg).\n")
		return
	}
	if name == "" {
		if d.fromUser() && !d.query("Delete all environment variables? ") {
			return
		}
		d.environment()
		d.startup.env = []string{}
	} else {
		d.startup.env = slices.DeleteFunc(slices.Clone(d.environment()), func(kv string) bool { return strings.HasPrefix(kv, name+"=") })
	}
	d.noteRunChange()
}

// showEnvironment is gdb's show environment [NAME]. A guest refuses it: the debugger's
// environment may hold its owner's secrets.
func (d *Debugger) showEnvironment(name string) {
	if d.guest {
		d.fail("show environment: not here; the environment is the debugger's owner's.\n")
		return
	}
	env := os.Environ()
	if d.startup.envSet {
		env = d.startup.env
	}
	if name == "" {
		for _, kv := range env {
			d.printf("%s\n", kv)
		}
		return
	}
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			d.printf("%s = %s\n", name, v)
			return
		}
	}
	d.printf("Environment variable \"%s\" not defined.\n", name)
}

// startingProgram is gdb's line before a run typed or piped: the program and its arguments.
func (d *Debugger) startingProgram() {
	if d.cfg.Program != "" && d.fromUser() {
		d.printf("Starting program: %s %s\n", cmp.Or(d.startup.program, d.cfg.Program), d.argsText())
	}
}

func (d *Debugger) showArgs() {
	d.printf("Argument list to give program being debugged when it is started is \"%s\".\n", d.argsText())
}

// shellWords splits a command line into words as a shell would, without expanding
// anything: blanks separate words, 'single' and "double" quotes keep blanks, a backslash
// keeps the character after it (in double quotes, only before \ " $ `).
func shellWords(text string) ([]string, error) {
	var words []string
	var word strings.Builder
	inWord := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words, inWord = append(words, word.String()), false
				word.Reset()
			}
			continue
		case c == '\\' && i+1 < len(text):
			i++
			word.WriteByte(text[i])
		case c == '\'':
			end := strings.IndexByte(text[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("Unterminated quoted string in the arguments: %s", text[i:])
			}
			word.WriteString(text[i+1 : i+1+end])
			i += 1 + end
		case c == '"':
			j := i + 1
			for ; j < len(text) && text[j] != '"'; j++ {
				if text[j] == '\\' && j+1 < len(text) && strings.IndexByte("\\\"$`", text[j+1]) >= 0 {
					j++
				}
				word.WriteByte(text[j])
			}
			if j >= len(text) {
				return nil, fmt.Errorf("Unterminated quoted string in the arguments: %s", text[i:])
			}
			i = j
		default:
			word.WriteByte(c)
		}
		inWord = true
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, nil
}

// cmdUnset is gdb's unset environment [NAME].
func cmdUnset(d *Debugger, args string) bool {
	what, name, _ := strings.Cut(args, " ")
	if what == "substitute-path" {
		d.unsetSubstitutePath(strings.TrimSpace(name))
		return false
	}
	if len(what) < 3 || !strings.HasPrefix("environment", what) {
		d.fail("Undefined unset command: \"%s\".  Try \"help unset\".\n", what)
		return false
	}
	d.unsetEnvironment(strings.TrimSpace(name))
	return false
}
