package cli_test

import (
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/gdbcmd"
	"github.com/polydbg/polydbg/kite"
	"github.com/polydbg/polydbg/protocol/cli"
)

// FuzzCommands feeds arbitrary command scripts to the terminal debugger: it must answer
// every line and end at the end of input, never panic or hang.
func FuzzCommands(f *testing.F) {
	for _, seed := range []string{
		"b fib if n == 2\nrun\nbt\nn\ns\nfinish\np n\nc\n",
		"start\nsi\nsi\ninfo locals\ninfo breakpoints\nlist\nlist fib\nup\ndown\nframe 9\nkill\n",
		"b *3\nb prog.kite:2\ntbreak 5 if n > 1\ncondition 1 n == 0\ndelete 2\nrun\ndisplay n + 1\nc\nc\n",
		"p (\nb\nb *zz\ncondition x\nundisplay -1\nhistory\nhelp\nfr\n\n\n",
		"b fib\nrun\np n\np $1 + $$ + $$9 + $\"$\"\np/x n\np/c $\nptype n\nwhatis $2\nset context on\nc 3\ninfo args\nshow values\nset listsize 0\nlist 3\n",
		"b fib\nrun\nprintf \"%-5d|%s|%c|%x|%%|%5.1f\\n\", n, \"a,b\", 65, n, 1.5\nprintf \"%\"\nprintf \"%d\nprintf \"\\777\\\", (n\necho a\\tb\\\noutput/x n\noutput\n",
		"b fib\nrun\ndisable\nenable 1 2 x\nignore 1 2\nignore\nc\nuntil\nuntil 3\nwatch n\nrwatch total\nawatch fib\nc\n",
		"dprintf fib,\"%d %f\\n\", n, n\ndprintf 3,\"%g%X\",,\ndprintf ,\"x\"\ndprintf fib\ninfo breakpoints\nrun\nprintf \"%f\",\n",
		"b fib\nrun\nthread apply all bt\nthread apply 1 2 p n\nthread apply\nthread apply x\nclear\nclear fib\nclear 99\nclear *0\nnexti\nni\n",
		"handle SIGUSR1 nostop\nhandle\ninfo signals\nset print pretty on\nb fib\nrun\np n\ninfo locals\nset print p\nshow print\nsource\nsource /nonexistent\n",
	} {
		f.Add(seed)
	}
	p, err := kite.Compile("prog.kite", []byte(prog), nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, script string) {
		if len(script) > 4096 || strings.Count(script, "\n") > 64 {
			return
		}
		var out strings.Builder
		done := make(chan struct{})
		go func() {
			defer close(done)
			cli.Run(cli.Config{In: strings.NewReader(script), Debug: gdbcmd.Config{Out: &out, NewSession: kiteSessions(p)}})
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("the debugger did not finish the script %q", script)
		}
	})
}
