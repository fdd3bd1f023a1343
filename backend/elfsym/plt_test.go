package elfsym

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/polydbg/polydbg/internal/realparts"
)

// pltProg calls library functions through the PLT, one of them also taken by address
// (its entry in .plt.got).
const pltProg = `#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(void) {
	void (*ex)(int) = exit;
	puts("hello");
	write(1, "x\n", 2);
	if (getpid() == 0) ex(1);
	exit(0);
}
`

// The PLT's entries as objdump names them (puts@plt at its address), for each way gcc and
// ld lay the PLT out: lazy binding, immediate binding, indirect branch tracking (.plt.sec),
// and a stripped program.
func TestPLTEntriesAsObjdump(t *testing.T) {
	realparts.Need(t, "gcc")
	realparts.Need(t, "objdump")
	src := filepath.Join(t.TempDir(), "plt.c")
	if err := os.WriteFile(src, []byte(pltProg), 0o644); err != nil {
		t.Fatal(err)
	}
	label := regexp.MustCompile(`(?m)^([0-9a-f]+) <([a-z_]+)@plt>:$`)
	agree, total := 0, 0
	for _, flags := range [][]string{{}, {"-Wl,-z,now"}, {"-fcf-protection=full"}, {"-fcf-protection=full", "-Wl,-z,now"}, {"-no-pie"}, {"-s"}} {
		f := build(t, "gcc", append([]string{"-O0", src}, flags...)...)
		out, err := exec.Command("objdump", "-d", "--section=.plt", "--section=.plt.sec", "--section=.plt.got", f.Path).Output()
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]uint64{}
		for _, m := range label.FindAllStringSubmatch(string(out), -1) {
			a, _ := strconv.ParseUint(m[1], 16, 64)
			want[m[2]] = a
		}
		if len(want) < 3 {
			t.Fatalf("%v: objdump names %d entries:\n%s", flags, len(want), out)
		}
		for name, a := range want {
			total++
			got, ok := f.PLTEntry(name)
			if ok && got == a {
				agree++
			} else {
				t.Errorf("%v: %s@plt at %#x (%v), objdump %#x", flags, name, got, ok, a)
			}
			if s, ok := f.SymbolAt(a + 2); !ok || s != name+"@plt+2" {
				t.Errorf("%v: SymbolAt(%#x) = %q", flags, a+2, s)
			}
		}
		if _, ok := f.PLTEntry("main"); ok {
			t.Errorf("%v: main has a PLT entry", flags)
		}
	}
	t.Logf("PLT entries: %d of %d as objdump", agree, total)
}
