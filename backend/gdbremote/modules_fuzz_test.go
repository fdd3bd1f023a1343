package gdbremote

import (
	"strings"
	"testing"
)

// FuzzParseLibrariesSVR4: any document is either refused or gives modules with a file
// path and a name that is its base name.
func FuzzParseLibrariesSVR4(f *testing.F) {
	for _, s := range []string{
		`<library-list-svr4 version="1.0" main-lm="0x7ffff7ffe2e0"><library name="/lib/x86_64-linux-gnu/libc.so.6" lm="0x7ffff7fc3000" l_addr="0x7ffff7dd4000" l_ld="0x7ffff7faa940" lmid="0x0"/><library name="linux-vdso.so.1" lm="0x1" l_addr="0x7ffff7fc5000" l_ld="0x2"/></library-list-svr4>`,
		`<library-list-svr4 version="1.0"/>`, `<library-list-svr4><library name="/x" l_addr="zz"/>`, "", "<",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		mods, err := parseLibrariesSVR4(b)
		if err != nil {
			return
		}
		for _, m := range mods {
			if !strings.Contains(m.Path, "/") || m.Name == "" || !strings.HasSuffix(m.Path, m.Name) {
				t.Fatalf("module %+v", m)
			}
		}
	})
}

func TestParseLibrariesSVR4(t *testing.T) {
	mods, err := parseLibrariesSVR4([]byte(`<library-list-svr4 version="1.0" main-lm="0x1"><library name="/lib/x86_64-linux-gnu/libc.so.6" lm="0x2" l_addr="0x7ffff7dd4000" l_ld="0x3"/><library name="linux-vdso.so.1" lm="0x4" l_addr="0x7ffff7fc5000" l_ld="0x5"/></library-list-svr4>`))
	if err != nil || len(mods) != 1 || mods[0].Name != "libc.so.6" || mods[0].Base != 0x7ffff7dd4000 {
		t.Fatalf("%+v %v", mods, err)
	}
}
