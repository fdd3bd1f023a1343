package bench

import (
	"bytes"
	"fmt"
	"os/exec"
	"strconv"
	"strings"
)

// cLuaRunner runs a Lua program in C Lua 5.4 (Debian's lua5.4), the reference people who
// embed a scripting language know: one whole process per run, the program on its stdin
// followed by a line that writes its global result. The process's start-up is part of the
// time (about 1 ms, against 50 ms or more for the programs); its CPU time is counted by
// cpuTime, which adds the waited-for children of the benchmark process.
func cLuaRunner(file string, src []byte) (runner, error) {
	path, err := exec.LookPath("lua5.4")
	if err != nil {
		return nil, fmt.Errorf("%v (run bench/setup.sh to install Debian's lua5.4)", err)
	}
	prog := append(append([]byte(nil), src...), "\nio.write(string.format('%d', result))\n"...)
	return func() (int64, error) {
		cmd := exec.Command(path, "-")
		cmd.Stdin = bytes.NewReader(prog)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return 0, fmt.Errorf("%s: %v: %s", file, err, stderr.String())
		}
		return strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	}, nil
}
