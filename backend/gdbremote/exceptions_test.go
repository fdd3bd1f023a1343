package gdbremote

import "testing"

// The operands of libstdc++'s probes as its notes spell them.
func TestParseProbeArg(t *testing.T) {
	for arg, want := range map[string]probeOperand{
		"8@%rdi":      {reg: "rdi"},
		"8@-80(%rbx)": {reg: "rbx", mem: true, off: -80},
		"-4@16(%rsp)": {reg: "rsp", mem: true, off: 16},
		"8@(%rax)":    {reg: "rax", mem: true},
		"8@$5":        {isConst: true, value: 5},
	} {
		got, err := parseProbeArg(arg)
		if err != nil || got != want {
			t.Errorf("parseProbeArg(%q) = %+v, %v; want %+v", arg, got, err, want)
		}
	}
	for _, bad := range []string{"", "8", "8@", "8@rdi", "8@x(%rbx)", "8@$x", "8@%"} {
		if _, err := parseProbeArg(bad); err == nil {
			t.Errorf("parseProbeArg(%q): no error", bad)
		}
	}
}

// Any text is read or refused, never a panic.
func FuzzParseProbeArg(f *testing.F) {
	for _, s := range []string{"8@%rdi", "8@-80(%rbx)", "8@$5", "8@(", "@)", "8@%(%)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if o, err := parseProbeArg(s); err == nil && !o.isConst && o.reg == "" {
			t.Fatalf("parseProbeArg(%q) = %+v: no register", s, o)
		}
	})
}
