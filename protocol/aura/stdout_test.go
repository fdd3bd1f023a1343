package aura

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// TestWirePartialLines: event lines always begin a line; program text is held back only
// while its line is incomplete, and comes out whole and in order.
func TestWirePartialLines(t *testing.T) {
	ev := TerminatedEvent{Event: "terminated", Target: "devvm"}
	evLine := string(appendEvent(nil, ev))
	for _, tc := range []struct {
		name string
		run  func(o *stdout)
		want string
	}{
		{"whole lines pass at once", func(o *stdout) {
			o.program([]byte("a\nb\n"))
			o.event(ev, false)
		}, "a\nb\n" + evLine},
		{"partial held behind an event", func(o *stdout) {
			o.program([]byte("ab"))
			o.event(ev, false)
			o.program([]byte("c\nd"))
			o.finish()
		}, evLine + "abc\nd"},
		{"a stop releases the partial line", func(o *stdout) {
			o.program([]byte("x\npro"))
			o.program([]byte("mpt: "))
			o.event(ev, true)
			o.program([]byte("rest\n"))
		}, "x\nprompt: \n" + evLine + "rest\n"},
		{"no partial line: nothing added", func(o *stdout) {
			o.program([]byte("x\n"))
			o.event(ev, true)
			o.finish()
		}, "x\n" + evLine},
		{"many chunks", func(o *stdout) {
			for _, c := range []string{"1", "2", "3\n4", "5\n", "6"} {
				o.program([]byte(c))
			}
			o.event(ev, false)
			o.finish()
		}, "123\n45\n" + evLine + "6"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			o := newStdout(&buf, true)
			tc.run(o)
			o.close(context.Background())
			if buf.String() != tc.want {
				t.Fatalf("got %q, want %q", buf.String(), tc.want)
			}
			for _, l := range strings.SplitAfter(buf.String(), "\n") {
				if i := strings.Index(l, EventPrefix); i > 0 {
					t.Fatalf("event glued to program text: %q", l)
				}
			}
		})
	}
}

func TestWireProtocolOff(t *testing.T) {
	var buf bytes.Buffer
	o := newStdout(&buf, false)
	o.program([]byte("ab"))
	o.event(TerminatedEvent{Event: "terminated"}, true)
	o.program([]byte("c\n"))
	o.finish()
	if buf.String() != "abc\n" {
		t.Fatalf("got %q", buf.String())
	}
}

func TestEncodeEventNoHTMLEscape(t *testing.T) {
	got := string(appendEvent(nil, StoppedEvent{Event: "stopped", Env: map[string]string{"f": "<fn f>"}}))
	if !strings.Contains(got, `"f":"<fn f>"`) || !strings.HasSuffix(got, "}\n") || strings.Count(got, "\n") != 1 {
		t.Fatalf("got %q", got)
	}
}

// The stopped event, written field by field, is what encoding/json writes for it.
func TestStoppedEncodedAsJSON(t *testing.T) {
	v, quoted := "3", "a \"q\" <b> é\n\x01 \xff \u2028"
	for _, ev := range []StoppedEvent{
		{Event: "stopped", Reason: "step", File: "/tmp/a.kite", Line: 4, Col: 5, Env: map[string]string{"z": "1", "a": quoted}, Watches: []WatchResult{}},
		{Event: "stopped", Reason: "breakpoint", File: `C:\k\a.kite`, Line: -1, Func: "main", BreakpointID: 7,
			Watches: []WatchResult{{Expr: "i", Value: &v}, {Expr: "nosuch", Error: quoted}, {Expr: ""}}},
		{Event: "stopped", Reason: "exception", Error: quoted, Env: map[string]string{}},
		{},
	} {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(ev); err != nil {
			t.Fatal(err)
		}
		if got := string(appendEvent(nil, ev)); got != EventPrefix+want.String() {
			t.Errorf("got  %s\nwant %s", got, EventPrefix+want.String())
		}
	}
}
