package gdbcmd

import (
	"fmt"
	"slices"
	"strings"

	"github.com/polydbg/polydbg/engine"
)

// The program's arguments, as gdb's run ARGS, set args and show args keep them.

// programArgs is what the next run gives the program: the words, and the text they were
// given as (what show args says).
type programArgs struct {
	words  []string
	text   string
	set    bool     // changed by run ARGS or set args since the debugger started
	inUse  []string // the words the current session's program was made with
	change bool     // words differ from inUse: the next run makes a new session
}

// setArgs makes text the program's arguments from the next run on (run ARGS, set args).
// Without NewSessionArgs the program's arguments are fixed: only the same ones are taken.
func (d *Debugger) setArgs(text string) error {
	words, err := shellWords(text)
	if err != nil {
		return err
	}
	if d.cfg.NewSessionArgs == nil && !slices.Equal(words, d.argWords()) {
		return fmt.Errorf("The program's arguments cannot be changed here (a program with none, or given to polydbg when it started).")
	}
	d.args.words, d.args.text, d.args.set = words, text, true
	d.args.change = !slices.Equal(words, d.args.inUse)
	return nil
}

// argWords is the words the next run gives the program.
func (d *Debugger) argWords() []string {
	if d.args.set {
		return d.args.words
	}
	return d.cfg.Args
}

// argsText is show args's text: as given to set args or run, or the start's words as a
// shell would read them back (gdb's "with\\ space").
func (d *Debugger) argsText() string {
	if d.args.set {
		return d.args.text
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

// makeSession makes a fresh session of the program with the arguments of the next run.
func (d *Debugger) makeSession() (*engine.Session, error) {
	if d.cfg.NewSessionArgs == nil {
		return d.cfg.NewSession()
	}
	words := d.argWords()
	s, err := d.cfg.NewSessionArgs(words)
	if err == nil {
		d.args.inUse, d.args.change = words, false
	}
	return s, err
}

// startingProgram is gdb's line before a run typed or piped: the program and its arguments.
func (d *Debugger) startingProgram() {
	if d.cfg.Program != "" && d.fromUser() {
		d.printf("Starting program: %s %s\n", d.cfg.Program, d.argsText())
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
