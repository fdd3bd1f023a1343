package cli_test

import (
	"path/filepath"
	"regexp"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// echo and printf print what gdb prints for the same commands on the same program; output
// prints a value alone.
func TestEchoOutputPrintfAsGDB(t *testing.T) {
	realparts.Need(t, "gdb")
	commands := `break measure
run
echo <a\tb\n
printf "<%d|%5.2f|%c|%s|%x|%lu|%-4d|%o|%%>\n", n, s->scale, s->tag, "lit", mask, sizeof(*s), i, n
printf "<%u|%#x|%e|%g|%i|%s>\n", dim, values[2], s->scale, s->ratio, -n, "two words"
`
	dir, out := nativeScriptOf(t, "arith", cArith, commands+"output n * 2\noutput/x mask\nprintf \"%d %d\\n\", n\n")
	oracle := gdbBatch(t, filepath.Join(dir, "arith"), commands)
	marked := regexp.MustCompile(`(?m)^<.*$`)
	agreeWithGDB(t, "echo, printf", []string{"echo", "printf 1", "printf 2"},
		marked.FindAllString(out, -1), marked.FindAllString(oracle, -1), out, oracle)
	expect(t, out, "(polydbg) output n * 2\n20(polydbg) output/x mask\n0x30(polydbg) ",
		"Wrong number of arguments for specified format-string\n")
}

// interrupt on a program that is stopped does nothing, as in gdb (it waited for ever for a
// stop, found by FuzzCommands); before the program runs it says so.
func TestInterruptWhileStopped(t *testing.T) {
	out := script(t, "interrupt\nb fib\nrun\ninterrupt\np n\n")
	expect(t, out, "(polydbg) interrupt\nThe program is not being run.\n", "(polydbg) interrupt\n(polydbg) p n\n$1 = ")
}
