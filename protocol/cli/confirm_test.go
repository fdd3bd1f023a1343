package cli

import (
	"strings"
	"testing"

	"github.com/polydbg/polydbg/internal/lineedit"
)

// The answer to gdb's question is read again until it is y or n (yes, no, any case); the
// end of input answers yes, as gdb's query does.
func TestConfirmReadsAnAnswer(t *testing.T) {
	for _, tt := range []struct {
		typed string
		want  bool
		said  string
	}{
		{"y\n", true, "Q? "},
		{"YES\n", true, "Q? "},
		{"n\n", false, "Q? "},
		{"maybe\n\nno\n", false, "Q? Please answer y or n.\nQ? Please answer y or n.\nQ? "},
		{"", true, "Q? EOF [answered Y; input not from terminal]\n"},
	} {
		var out strings.Builder
		in := lineedit.Pipe(strings.NewReader(tt.typed), &out, 100)
		if got := confirm(in, &out, "Q? "); got != tt.want || out.String() != tt.said {
			t.Errorf("%q: %v, said %q; want %v, %q", tt.typed, got, out.String(), tt.want, tt.said)
		}
	}
}
