package launch_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/backend/gdbremote"
	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/realparts"
	"github.com/polydbg/polydbg/launch"
)

// A native program's machine code is disassembled at its load address as gdb's x/i has it
// (the call's target named by the running program's address), and finding that address
// reads no library's debug file (it looked main up in every library, about a second with
// libc's installed).
func TestDisassembleNativeAsGDB(t *testing.T) {
	realparts.Need(t, "gdbserver", "gdb", "objdump")
	src, exe := realparts.BuildC(t, "sq", "int sq(int x) {\n\treturn x * x;\n}\nint main(void) {\n\tint r = sq(3);\n\treturn r == 9 ? 0 : 1;\n}\n")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	d, err := launch.Start(ctx, launch.Spec{Kind: launch.Native, Program: exe})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = d.Close() }()
	d.SetBreakpoints(src, []engine.BreakpointSpec{{Line: 5}})
	seq := d.Seq()
	if err := d.Start(false); err != nil {
		t.Fatal(err)
	}
	h, err := d.WaitStop(ctx, seq)
	if err != nil || h.Stop == nil {
		t.Fatalf("no stop at line 5: %+v %v", h, err)
	}
	pc := h.Stop.Location.PC
	ins, err := d.Disassemble(ctx, pc, 4)
	if err != nil {
		t.Fatal(err)
	}
	var ours []string
	for _, in := range ins {
		ours = append(ours, fmt.Sprintf("%#x %s", in.PC, strings.Join(strings.Fields(in.Text), " ")))
	}
	var gdb []string
	for _, l := range strings.Split(realparts.GDBBatch(t, exe, "break 5\nrun\nx/4i $pc"), "\n") {
		addr, text, ok := strings.Cut(strings.TrimPrefix(strings.TrimSpace(l), "=> "), ":\t")
		if ok && strings.HasPrefix(addr, "0x") {
			addr, _, _ = strings.Cut(addr, " ")
			gdb = append(gdb, addr+" "+strings.Join(strings.Fields(text), " "))
		}
	}
	agree := 0
	for i := range gdb {
		if i < len(ours) && ours[i] == gdb[i] {
			agree++
		} else {
			t.Errorf("instruction %d: ours %q, gdb's %q", i, ours[min(i, len(ours)-1)], gdb[i])
		}
	}
	t.Logf("%d of %d instructions agree with gdb's x/4i", agree, len(gdb))
	if len(gdb) != 4 || !strings.Contains(strings.Join(ours, "\n"), "<sq>") {
		t.Errorf("want 4 instructions with the call of sq; gdb %q, ours %q", gdb, ours)
	}
	if tg, ok := d.Target().(*gdbremote.Target); ok {
		if read := tg.Symbols().DebugFilesRead(); len(read) != 0 {
			t.Errorf("disassembling read the libraries' debug files %v", read)
		}
	}
}
