// Command answer is the floor of the step round-trip benchmarks: a trivial child that
// answers every line of its stdin at once with the line given as its argument, over the
// same pipes a debugger front end uses. Nothing a debugger does can be faster than this.
package main

import (
	"bufio"
	"os"
)

func main() {
	answer := []byte(os.Args[1] + "\n")
	r := bufio.NewReader(os.Stdin)
	w := bufio.NewWriter(os.Stdout)
	for {
		if _, err := r.ReadSlice('\n'); err != nil {
			return
		}
		w.Write(answer)
		if err := w.Flush(); err != nil {
			return
		}
	}
}
