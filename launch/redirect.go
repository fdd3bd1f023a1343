package launch

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/polydbg/polydbg/backend/gdbremote"
)

// openRedirections opens the files a native program's input and output are redirected to
// (Spec.StdinFile, StdoutFile; relative to its working directory) into run; the function
// returned closes them once the program has them.
func openRedirections(s Spec, run *gdbremote.NativeRun) (func(), error) {
	var open []*os.File
	closeAll := func() {
		for _, f := range open {
			f.Close()
		}
	}
	at := func(name string) string {
		if filepath.IsAbs(name) || s.Dir == "" {
			return name
		}
		return filepath.Join(s.Dir, name)
	}
	if s.StdinFile != "" {
		f, err := os.Open(at(s.StdinFile))
		if err != nil {
			return nil, fmt.Errorf("launch: the program's input: %w", err)
		}
		open, run.Stdin = append(open, f), f
	}
	if s.StdoutFile != "" {
		flags := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
		if s.StdoutAppend {
			flags = os.O_WRONLY | os.O_CREATE | os.O_APPEND
		}
		f, err := os.OpenFile(at(s.StdoutFile), flags, 0o644)
		if err != nil {
			closeAll()
			return nil, fmt.Errorf("launch: the program's output: %w", err)
		}
		open, run.Stdout = append(open, f), f
	}
	return closeAll, nil
}
