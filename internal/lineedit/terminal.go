package lineedit

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/peterh/liner"
)

// DefaultHistorySize is how many lines a history file keeps (gdb keeps 256; liner's
// in-memory history holds at most liner.HistoryLimit).
const DefaultHistorySize = liner.HistoryLimit

// Options configures a terminal reader. The zero value edits lines with no history file
// and no completion.
type Options struct {
	HistoryFile string // kept across runs; "" keeps none
	HistorySize int    // lines the file keeps; DefaultHistorySize when 0
	// Complete returns the candidates for the text before the cursor and the part of that
	// text they all share as head (which a candidate replaces the rest of).
	Complete func(before string) (head string, candidates []string)
}

// Terminal edits lines on the terminal of the process (standard input and output).
type Terminal struct {
	st   *liner.State
	file string
	size int
}

// NewTerminal takes over the terminal until Close, and reads the history file if any.
func NewTerminal(o Options) *Terminal {
	st := liner.NewLiner()
	st.SetCtrlCAborts(true)
	st.SetTabCompletionStyle(liner.TabPrints)
	st.SetBeep(false)
	if o.Complete != nil {
		st.SetWordCompleter(func(line string, pos int) (string, []string, string) {
			head, cands := o.Complete(line[:pos])
			return head, cands, line[pos:]
		})
	}
	t := &Terminal{st: st, file: o.HistoryFile, size: o.HistorySize}
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

// ReadLine shows the prompt and edits a line; Ctrl-C gives ErrInterrupted, Ctrl-D io.EOF.
func (t *Terminal) ReadLine(prompt string) (string, error) {
	line, err := t.st.Prompt(prompt)
	if errors.Is(err, liner.ErrPromptAborted) {
		return "", ErrInterrupted
	}
	return line, err
}

// Remember adds line to the history and saves the file at once, so that a killed session
// keeps what was typed.
func (t *Terminal) Remember(line string) {
	t.st.AppendHistory(line)
	t.save()
}

// save writes the last t.size lines to the history file through a temporary file, so two
// sessions ending together never leave half a file.
func (t *Terminal) save() {
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

// Close gives the terminal back.
func (t *Terminal) Close() { t.st.Close() }

// DefaultHistoryFile is where program app keeps its history across runs, like gdb's
// ~/.gdb_history: $APP_HISTORY (app in upper case), else $XDG_STATE_HOME/app/history, else
// ~/.local/state/app/history.
func DefaultHistoryFile(app string) string {
	if f := os.Getenv(strings.ToUpper(app) + "_HISTORY"); f != "" {
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
	return filepath.Join(dir, app, "history")
}
