package cli_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

const framesProg = `#include <stdio.h>
struct point { int x, y; };
enum color { RED, GREEN = 5, BLUE };
int fact(int n) {
    if (n <= 1)
        return 1;
    return n * fact(n - 1);
}
int paint(struct point p, enum color c, const char *name, int *out) {
    *out = p.x + c + name[0];
    return fact(3);
}
int main(void) {
    struct point p = {1, 2};
    int o = 0;
    int r = paint(p, GREEN, "pt", &o);
    printf("%d %d\n", r, o);
    return 0;
}
`

// frameText finds the frames a transcript shows (at a stop, in a backtrace, after finish,
// up and down) and keeps the frame itself: "#1  0x... in fact (n=3) at frames.c:7", and
// the lines a stepi shows in the middle of a line, after their pc. (gdb
// -batch does not say "Run till exit from".)
var frameText = regexp.MustCompile(`(?m)^(?:\(polydbg\) )?(?:Breakpoint \d+, )?((?:#\d+ +)?(?:0x[0-9a-f]+ in )?\w+ \(.*\) at \S+:\d+|0x[0-9a-f]+\t\d+\t.*)$`)

// stackAddress is a pointer into the stack, which gdb's own run of the program places
// elsewhere than gdbserver's (another environment).
var stackAddress = regexp.MustCompile(`0x7ff[0-9a-f]{9}`)

// frameLines are the frames a transcript shows, with the build directory and stack
// addresses taken out.
func frameLines(s, dir string) []string {
	var fs []string
	for _, m := range frameText.FindAllStringSubmatch(s, -1) {
		f := strings.ReplaceAll(m[1], dir+"/", "")
		fs = append(fs, stackAddress.ReplaceAllString(f, "0x7ff..."))
	}
	return fs
}

// Frames are shown as gdb shows them, arguments and caller addresses included: at a
// breakpoint, in a backtrace through a recursion and a function taking a struct, after
// finish (in the middle of the caller's line), on up, frame and down, and at each stepi.
func TestFrameLinesAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	const commands = "break fact if n == 1\nrun\nbacktrace\nfinish\nup\nframe 3\ndown\nbacktrace 2\nstepi\nstepi\nstepi\n"
	dir, out := nativeScriptOf(t, "frames", framesProg, commands)
	oracle := gdbBatch(t, filepath.Join(dir, "frames"), commands)
	agreeLines(t, "frame lines", 12, frameLines(out, dir), frameLines(oracle, dir), out, oracle)
	expect(t, out, "#3  0x", " in paint (p=..., c=GREEN, name=0x", ` "pt", out=0x`)
}
