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
		{"$$5", "", "History does not go back to $-2 (it starts at $1)."},
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
	if _, err := (&ValueHistory{}).Substitute("$"); err == nil || err.Error() != "History is empty." {
		t.Errorf("empty history: %v", err)
	}
}
