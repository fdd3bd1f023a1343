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
		"b fib\ncommands\nsilent\np n\nif n > 1\ncontinue\nend\nend\nrun\ninfo breakpoints\ncommands 9\ncommands x\nend\n",
		"set $i = 0\nwhile $i < 3\nset $i = $i + 1\nif $i == 2\nloop_continue\nelse\necho $i\nend\nend\np $i\np $nothing\nset $ = 1\nset $1x = 2\n",
		"return\nb fib\nrun\nreturn 3\nup 99\nreturn n +\nreturn $1\nreturn (\nbt\n",
		"b fib\nrun\np n = 2\np n++\np ++n\np n += (\np $x = n--\np fib(3)\np = 1\np ++\np n+++n\np/x n *= 2\n",
		"define f\nf $arg0\nend\nf 1\ndefine g\nwhile 1\nloop_break\nend\necho $argc $arg0 $arg9\nend\ng a b\ndefine\ndefine print\nwhile 1\nend\n",
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
			cli.Run(cli.Config{In: strings.NewReader(script), Interrupts: ctrlCEvery(time.Second),
				Debug: gdbcmd.Config{Out: &out, NewSession: kiteSessions(p)}})
		}()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("the debugger did not finish the script %q", script)
		}
	})
}

// ctrlCEvery presses Ctrl-C every period while the debugger runs, as a person would to end
// a loop the script asked for ("while 1").
func ctrlCEvery(period time.Duration) func(pause func()) (stop func()) {
	return func(pause func()) func() {
		t := time.NewTicker(period)
		done := make(chan struct{})
		go func() {
			for {
				select {
				case <-t.C:
					pause()
				case <-done:
					return
				}
			}
		}()
		return func() { t.Stop(); close(done) }
	}
}
