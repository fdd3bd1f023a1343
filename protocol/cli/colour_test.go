package cli

import (
	"testing"

	"github.com/polydbg/polydbg/kite/syntax"
)

func TestKiteKeywordsAreTheLanguages(t *testing.T) {
	if len(kiteKeywords) != len(syntax.Keywords) {
		t.Fatalf("%d keywords here, %d in kite/syntax", len(kiteKeywords), len(syntax.Keywords))
	}
	for k := range syntax.Keywords {
		if !kiteKeywords[k] {
			t.Errorf("keyword %q is not coloured", k)
		}
	}
}

func TestHighlight(t *testing.T) {
	for _, tt := range []struct {
		line string
		c    bool
		want string
	}{
		{`let s = "fn" // fn`, false, ansiKeyword + "let" + ansiReset + ` s = ` + ansiString + `"fn"` + ansiReset + " " + ansiComment + "// fn" + ansiReset},
		{"for i in range(0, 10) {", false, ansiKeyword + "for" + ansiReset + " i " + ansiKeyword + "in" + ansiReset + " range(" + ansiNumber + "0" + ansiReset + ", " + ansiNumber + "10" + ansiReset + ") {"},
		{`int x = 'a'; /* c */ x1`, true, ansiKeyword + "int" + ansiReset + " x = " + ansiString + "'a'" + ansiReset + "; " + ansiComment + "/* c */" + ansiReset + " x1"},
		{"#include <stdio.h>", true, ansiKeyword + "#include" + ansiReset + " <stdio.h>"},
		{`"unclosed \" str`, false, ansiString + `"unclosed \" str` + ansiReset},
	} {
		kw := kiteKeywords
		if tt.c {
			kw = cKeywords
		}
		if got := highlight(tt.line, kw, tt.c); got != tt.want {
			t.Errorf("highlight(%q)\n got %q\nwant %q", tt.line, got, tt.want)
		}
	}
	d := &Debugger{}
	if got := d.colour("a.kite", "let x = 1"); got != "let x = 1" {
		t.Errorf("colour without Config.Color: %q", got)
	}
	d.cfg.Color = true
	if got := d.colour("notes.txt", "let x = 1"); got != "let x = 1" {
		t.Errorf("colour of a text file: %q", got)
	}
}
