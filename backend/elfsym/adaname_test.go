package elfsym

import "testing"

// The names gdb 13 showed for these symbols (info symbol), a C program's.
func TestGDBSymbolName(t *testing.T) {
	for enc, want := range map[string]string{
		"count.0": "count", "weigh.constprop.0": "weigh.constprop", "x.part.0": "x.part", "z.isra.3": "z.isra",
		"w.lto_priv.0": "w.lto_priv", "y.cold": "y[cold]", "a.b.c": "a.b[c]", "a.b": "a[b]", "x.y.0": "x.y",
		"q1.2": "q1", "abc_.0": "abc_", "a_b.0": "a_b", "ab__c.0": "ab.c", "x__y": "x.y", "abc__3": "abc",
		"abc$5": "abc", "e2e__b_1__c": "e2e.b_1.c", "foo.cold.2": "foo.cold", "getB": "get", "runTB": "run",
		"fooTKB": "foo", "aXb": "a", "fooXb": "foo", "foo___Xab": "foo", "foo___ab": "foo___ab",
		"ABC.0": "ABC.0", "__PRETTY_FUNCTION__.0": "__PRETTY_FUNCTION__.0", "_abc.0": "_abc.0",
		"main": "main", "my_var": "my_var", "main()": "main()", "re_search_2": "re_search_2", "XOpen": "XOpen",
	} {
		if got := gdbSymbolName(enc); got != want {
			t.Errorf("%s: %q, want gdb's %q", enc, got, want)
		}
	}
}

func FuzzGDBSymbolName(f *testing.F) {
	for _, s := range []string{"count.0", "y.cold", "x__y", "aXb", "foo___Xab", "e2e__b_1__c", "abc$5", "a__B_12__b", "fooTK__bar"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		d := gdbSymbolName(name)
		if d == "" && name != "" {
			t.Fatalf("%q: empty name", name)
		}
	})
}
