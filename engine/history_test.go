package engine

import "testing"

func TestSubstituteHistory(t *testing.T) {
	var h ValueHistory
	for i, v := range []string{"1", "-2", `"s$1"`} {
		if n := h.Record(Variable{Value: v}); n != i+1 {
			t.Fatalf("Record gave $%d, want $%d", n, i+1)
		}
	}
	for _, tt := range []struct{ in, want, err string }{
		{"$1 + $2", "(1) + (-2)", ""},
		{"$ + $$ + $$2 + $$0", `("s$1") + (-2) + (1) + ("s$1")`, ""},
		{`"$1" + $rax + $pc`, `"$1" + $rax + $pc`, ""},
		{"$4", "", "History has not yet reached $4."},
		{"$$5", "", "History does not go back to $$5."},
		{"n", "n", ""},
	} {
		got, err := h.Substitute(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("%q: error %v, want %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%q = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	if _, err := (&ValueHistory{}).Substitute("$"); err == nil || err.Error() != "The history is empty." {
		t.Errorf("empty history: %v", err)
	}
}

// Lookup finds a history value named alone, and nothing else.
func TestHistoryLookup(t *testing.T) {
	h := &ValueHistory{}
	h.Record(Variable{Value: "{x = 1}"})
	h.Record(Variable{Value: "7"})
	for expr, want := range map[string]string{"$": "7", "$$": "{x = 1}", "$1": "{x = 1}", " $2 ": "7", "$$0": "7"} {
		if v, ok, err := h.Lookup(expr); !ok || err != nil || v.Value != want {
			t.Errorf("Lookup(%q) = %q %v %v, want %q", expr, v.Value, ok, err, want)
		}
	}
	for _, expr := range []string{"$1 + 1", "$rax", "$pc", "n", "$-1", "$+1", "$_exitcode"} {
		if _, ok, _ := h.Lookup(expr); ok {
			t.Errorf("Lookup(%q) took it for a history value", expr)
		}
	}
	if _, ok, err := h.Lookup("$5"); !ok || err == nil || err.Error() != "History has not yet reached $5." {
		t.Errorf("Lookup($5): %v %v", ok, err)
	}
}

// Convenience variables are written into expressions as their values; registers and names
// never set are left alone, and so is text in quotes.
func TestConvenienceVariables(t *testing.T) {
	var h ValueHistory
	h.SetConvenience("i", Variable{Value: "3", Type: "int"})
	h.SetConvenience("p", Variable{Value: "0x601040 <vals>", Type: "int *"})
	for in, want := range map[string]string{
		"$i + 1":         "(3) + 1",
		"$i*$i":          "(3)*(3)",
		"$pc + $i":       "$pc + (3)",
		"*$p":            "*((int *) 0x601040)",
		`"$i" == $ii`:    `"$i" == $ii`,
		"$unset_var + 0": "$unset_var + 0",
	} {
		if got, err := h.Substitute(in); err != nil || got != want {
			t.Errorf("Substitute(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if v, ok := h.Convenience("i"); !ok || v.Name != "$i" || v.Value != "3" {
		t.Errorf("Convenience(i) = %+v, %v", v, ok)
	}
}

// A C++ object recorded with its dynamic class is found again by any reference to its
// number ($N, $, $$N), the static value being the history's; a value recorded plainly has
// no object.
func TestHistoryObjects(t *testing.T) {
	var h ValueHistory
	h.Record(Variable{Value: "1"})
	n := h.RecordObject(Variable{Value: "{w_ = 3}"}, HistoryObject{Class: "geo::Square", Value: Variable{Value: "{side = 3}"}})
	h.Record(Variable{Value: "2"})
	for _, ref := range []string{"$2", "$$1", " $2 "} {
		if o, ok := h.LookupObject(ref); !ok || o.Class != "geo::Square" || o.Value.Value != "{side = 3}" {
			t.Errorf("%s: %+v, %v", ref, o, ok)
		}
	}
	if v, _, _ := h.Lookup("$2"); n != 2 || v.Value != "{w_ = 3}" {
		t.Errorf("$2 = %+v (number %d)", v, n)
	}
	for _, ref := range []string{"$", "$1", "$9", "x", "$$9"} {
		if _, ok := h.LookupObject(ref); ok {
			t.Errorf("%s names an object", ref)
		}
	}
}

// A value the target keeps whole is left for it to read, as $N by its number (also when
// named $ or $$2) or as $name, and Kept finds what it kept.
func TestHistoryKeptWhole(t *testing.T) {
	var h ValueHistory
	whole := &struct{ x int }{1}
	h.Record(Variable{Value: "{x = 1}", Kept: whole})
	h.Record(Variable{Value: "7"})
	h.SetConvenience("v", Variable{Value: "{x = 1}", Kept: whole})
	h.SetConvenience("n", Variable{Value: "3"})
	for _, tt := range []struct{ in, want string }{
		{"$1.x + $2", "$1.x + (7)"},
		{"$$.x", "$1.x"},
		{"$$1[0]", "$1[0]"},
		{"$v.x + $n", "$v.x + (3)"},
	} {
		if got, err := h.Substitute(tt.in); err != nil || got != tt.want {
			t.Errorf("%q = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, ref := range []string{"$1", "$v"} {
		if o, ok := h.Kept(ref); !ok || o != any(whole) {
			t.Errorf("Kept(%s) = %v, %v", ref, o, ok)
		}
	}
	for _, ref := range []string{"$2", "$n", "$3", "$0", "$", "$nosuch", "1"} {
		if o, ok := h.Kept(ref); ok {
			t.Errorf("Kept(%s) = %v, want none", ref, o)
		}
	}
}
