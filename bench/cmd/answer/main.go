// Command answer is the floor of the step round-trip benchmarks: a trivial child that
// answers every message of its stdin at once with the text given as its argument, over the
// same pipes a debugger front end uses. Nothing a debugger does can be faster than this.
//
//	answer TEXT        answers each line with TEXT and a newline (EZ, Aura, the terminal)
//	answer -n TEXT     answers with TEXT as it is (a prompt, DAP frames)
//	answer -poll ...   waits for its input in Go's poller, as polydbg did before session 8 (poll.go)
//
// A message is a line, or a DAP frame (headers from "Content-Length: N" to an empty line,
// then N bytes), so that a DAP request is answered once.
package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"strconv"
)

func main() {
	args := os.Args[1:]
	var in io.Reader = os.Stdin
	var out io.Writer = os.Stdout
	if len(args) > 1 && args[0] == "-poll" {
		args = args[1:]
		in, out = pollWait()
	}
	nl := "\n"
	if len(args) > 1 && args[0] == "-n" {
		args, nl = args[1:], ""
	}
	answer := []byte(args[0] + nl)
	r := bufio.NewReader(in)
	w := bufio.NewWriter(out)
	for {
		line, err := r.ReadSlice('\n')
		if err != nil {
			return
		}
		if n, ok := bytes.CutPrefix(line, []byte("Content-Length:")); ok {
			size, _ := strconv.Atoi(string(bytes.TrimSpace(n)))
			for len(bytes.TrimSpace(line)) > 0 { // the other headers, up to the empty line
				if line, err = r.ReadSlice('\n'); err != nil {
					return
				}
			}
			if _, err := r.Discard(size); err != nil {
				return
			}
		}
		w.Write(answer)
		if err := w.Flush(); err != nil {
			return
		}
	}
}
