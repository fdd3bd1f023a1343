package gdbcmd

// The redirections of run ARGS and set args, as gdb's shell takes them: < FILE for the
// program's standard input, > FILE and >> FILE for its standard output. The program's
// standard error is gdbserver's, which tells the debugger where it listens: 2> is refused.

import (
	"errors"
	"strings"
)

// Redirect is where a run's standard input comes from and its output goes ("": the
// debugger's).
type Redirect struct {
	Stdin, Stdout string
	Append        bool // >>: the output is added at the file's end
}

// splitRedirections takes the redirections out of a command line: the rest is the
// arguments' text. A redirection is an unquoted <, >, >> (a file name may follow at once or
// after blanks, quoted as any word).
func splitRedirections(text string) (rest string, r Redirect, err error) {
	var b strings.Builder
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '\\' && i+1 < len(text):
			b.WriteString(text[i : i+2])
			i++
		case c == '\'' || c == '"':
			end := closingQuote(text, i)
			b.WriteString(text[i:end])
			i = end - 1
		case c == '<' || c == '>':
			op := string(c)
			if c == '>' && i+1 < len(text) && text[i+1] == '>' {
				op, i = ">>", i+1
			}
			if s := b.String(); strings.HasSuffix(s, "2") && (len(s) == 1 || strings.ContainsRune(" \t", rune(s[len(s)-2]))) && c == '>' {
				return "", r, errors.New("The program's standard error cannot be redirected here: gdbserver, which runs it, tells the debugger on it where it listens.")
			}
			file, next := redirectTarget(text, i+1)
			if file == "" {
				return "", r, errors.New("Missing file name after " + op + " in the arguments.")
			}
			words, werr := shellWords(file)
			if werr != nil || len(words) != 1 {
				return "", r, errors.New("Bad file name after " + op + " in the arguments: " + file)
			}
			switch op {
			case "<":
				r.Stdin = words[0]
			default:
				r.Stdout, r.Append = words[0], op == ">>"
			}
			b.WriteByte(' ')
			i = next - 1
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String()), r, nil
}

// closingQuote is the index after the quote that closes the one at text[i] (the end of
// text when none does: shellWords then says so).
func closingQuote(text string, i int) int {
	q := text[i]
	for j := i + 1; j < len(text); j++ {
		if q == '"' && text[j] == '\\' {
			j++
			continue
		}
		if text[j] == q {
			return j + 1
		}
	}
	return len(text)
}

// redirectTarget is the word at text[from:] after blanks (quotes kept, for shellWords),
// and the index after it.
func redirectTarget(text string, from int) (string, int) {
	i := from
	for i < len(text) && (text[i] == ' ' || text[i] == '\t') {
		i++
	}
	start := i
	for i < len(text) && text[i] != ' ' && text[i] != '\t' && text[i] != '<' && text[i] != '>' {
		switch text[i] {
		case '\\':
			i += 2
			continue
		case '\'', '"':
			i = closingQuote(text, i)
			continue
		}
		i++
	}
	i = min(i, len(text))
	return text[start:i], i
}
