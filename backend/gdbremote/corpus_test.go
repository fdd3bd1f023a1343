package gdbremote

import (
	"os"
	"testing"
	"time"

	"github.com/polydbg/polydbg/engine"
	"github.com/polydbg/polydbg/internal/firmware"
	"github.com/polydbg/polydbg/internal/realparts"
)

func TestMain(m *testing.M) {
	code := m.Run()
	firmware.RemoveCorpus()
	os.Exit(code)
}

// Firmware linked without ENTRY (e_entry is the start of .text, not Reset_Handler) and with
// --gc-sections reaches its first stop at once, at Reset_Handler, on both boards.
func TestStartFirmwareWithoutEntry(t *testing.T) {
	realparts.Need(t, "qemu-system-arm")
	elf := firmware.BuildCorpus(t, firmware.Variant{Opt: "-Os", GC: true, NoEntry: true})
	for _, m := range machines {
		t.Run(m, func(t *testing.T) {
			begin := time.Now()
			tg, err := StartQEMUTarget(testCtx(t, 20*time.Second), m, elf, Config{})
			if err != nil {
				t.Fatal(err)
			}
			x := newSess(t, tg)
			if err := x.s.Start(true); err != nil {
				t.Fatal(err)
			}
			st := x.stopped()
			if st.Reason != engine.ReasonEntry || st.Location.Func != "Reset_Handler" {
				t.Fatalf("entry %+v", st)
			}
			if d := time.Since(begin); d > 2*time.Second {
				t.Errorf("first stop after %v", d)
			}
		})
	}
}
