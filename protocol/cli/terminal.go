package cli

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/peterh/liner"
)

// How commands are read: from a pipe or file, line by line, exactly as typed (scripts and
// tests), or from a terminal with line editing, history and completion (liner).

// errInterrupted is a Ctrl-C typed at the prompt: the line is dropped and a new prompt shown.
var errInterrupted = errors.New("interrupted")

// lineReader reads one command after showing the prompt; io.EOF ends the session.
type lineReader interface {
	readLine(prompt string) (string, error)
	remember(line string) // a command to keep in the editing history
	close()
}

// pipeReader reads from Config.In; it prints the prompt itself and never writes escape codes.
type pipeReader struct {
	d  *Debugger
	in *bufio.Reader
}

func (p *pipeReader) readLine(prompt string) (string, error) {
	p.d.printf("%s", prompt)
	return readLine(p.in)
}

func (p *pipeReader) remember(string) {}
func (p *pipeReader) close()          {}

// DefaultHistorySize is how many commands the history file keeps (gdb keeps 256; liner's
// in-memory history holds at most liner.HistoryLimit).
const DefaultHistorySize = liner.HistoryLimit

// termReader edits lines on the terminal of the process (standard input and output).
type termReader struct {
	st      *liner.State
	file    string
	size    int
	written bool
}

func newTermReader(d *Debugger) *termReader {
	st := liner.NewLiner()
	st.SetCtrlCAborts(true)
	st.SetTabCompletionStyle(liner.TabPrints)
	st.SetBeep(false)
	st.SetWordCompleter(func(line string, pos int) (string, []string, string) {
		head, cands := d.complete(line[:pos])
		return head, cands, line[pos:]
	})
	t := &termReader{st: st, file: d.cfg.HistoryFile, size: d.cfg.HistorySize}
	if t.size <= 0 {
		t.size = DefaultHistorySize
	}
	if t.file != "" {
		if f, err := os.Open(t.file); err == nil {
			_, _ = st.ReadHistory(io.LimitReader(f, 1<<20))
			f.Close()
		}
	}
	return t
}

func (t *termReader) readLine(prompt string) (string, error) {
	line, err := t.st.Prompt(prompt)
	if errors.Is(err, liner.ErrPromptAborted) {
		return "", errInterrupted
	}
	return line, err
}

func (t *termReader) remember(line string) {
	t.st.AppendHistory(line)
	t.save() // after each command, so a killed session keeps what was typed
}

// save writes the last t.size commands to the history file through a temporary file, so
// two sessions ending together never leave half a file.
func (t *termReader) save() {
	if t.file == "" {
		return
	}
	var b strings.Builder
	if _, err := t.st.WriteHistory(&b); err != nil {
		return
	}
	lines := strings.SplitAfter(b.String(), "\n")
	if n := len(lines) - 1; n > t.size { // the last element is the empty rest after "\n"
		lines = lines[n-t.size:]
	}
	_ = os.MkdirAll(filepath.Dir(t.file), 0o700)
	tmp, err := os.CreateTemp(filepath.Dir(t.file), ".history-*")
	if err != nil {
		return
	}
	_, werr := io.WriteString(tmp, strings.Join(lines, ""))
	if cerr := tmp.Close(); werr != nil || cerr != nil {
		os.Remove(tmp.Name())
		return
	}
	if os.Rename(tmp.Name(), t.file) != nil {
		os.Remove(tmp.Name())
	}
}

func (t *termReader) close() { t.st.Close() }

// DefaultHistoryFile is where the history is kept across runs, like gdb's ~/.gdb_history:
// $POLYDBG_HISTORY, else $XDG_STATE_HOME/polydbg/history, else ~/.local/state/polydbg/history.
func DefaultHistoryFile() string {
	if f := os.Getenv("POLYDBG_HISTORY"); f != "" {
		return f
	}
	dir := os.Getenv("XDG_STATE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(dir, "polydbg", "history")
}
