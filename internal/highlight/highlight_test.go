package highlight

import "testing"

func TestLine(t *testing.T) {
	for _, tt := range []struct{ file, line, want string }{
		{"a.kite", `let s = "fn" // fn`, Keyword + "let" + Reset + ` s = ` + String + `"fn"` + Reset + " " + Comment + "// fn" + Reset},
		{"a.kite", "for i in range(0, 10) {", Keyword + "for" + Reset + " i " + Keyword + "in" + Reset + " range(" + Number + "0" + Reset + ", " + Number + "10" + Reset + ") {"},
		{"a.c", `int x = 'a'; /* c */ x1`, Keyword + "int" + Reset + " x = " + String + "'a'" + Reset + "; " + Comment + "/* c */" + Reset + " x1"},
		{"a.H", "#include <stdio.h>", Keyword + "#include" + Reset + " <stdio.h>"},
		{"a.kite", `"unclosed \" str`, String + `"unclosed \" str` + Reset},
		{"a.kite", "not nil", Keyword + "not" + Reset + " " + Keyword + "nil" + Reset},
		{"a.c", "int", Keyword + "int" + Reset},
		{"a.kite", "int", "int"},
		{"notes.txt", "let x = 1", "let x = 1"},
	} {
		if got := Line(tt.file, tt.line); got != tt.want {
			t.Errorf("Line(%q, %q)\n got %q\nwant %q", tt.file, tt.line, got, tt.want)
		}
	}
}
