package aura

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestParseCommand covers the accepted forms of every command.
func TestParseCommand(t *testing.T) {
	yes, no := true, false
	for _, tc := range []struct {
		line string
		want Command
		err  string
	}{
		{`{"cmd":"enable","start_paused":false,"perf":true}`, Command{Cmd: "enable", StartPaused: &no, Perf: &yes}, ""},
		{`{"cmd":"enable","startPaused":true}`, Command{Cmd: "enable", StartPaused: &yes}, ""},
		{`{"cmd":"enable","startPaused":true,"start_paused":false}`, Command{Cmd: "enable", StartPaused: &yes}, ""},
		{`{"cmd":"enable","stopOnException":true}`, Command{Cmd: "enable", StopOnException: &yes}, ""},
		{`{"cmd":"pause"}`, Command{Cmd: "pause"}, ""},
		{` {"cmd":"continue","extra":[1,{"a":2}]} `, Command{Cmd: "continue"}, ""},
		{`{"cmd":"step"}`, Command{Cmd: "step"}, ""},
		{`{"cmd":"stepIn"}`, Command{Cmd: "stepIn"}, ""},
		{`{"cmd":"stepOver"}`, Command{Cmd: "stepOver"}, ""},
		{`{"cmd":"stepOut"}`, Command{Cmd: "stepOut"}, ""},
		{`{"cmd":"terminate"}`, Command{Cmd: "terminate"}, ""},
		{`{"cmd":"setBreakpoints","breakpoints":[{"line":12},{"line":20,"condition":"x > 0"}]}`,
			Command{Cmd: "setBreakpoints", Breakpoints: []Breakpoint{{Line: 12}, {Line: 20, Condition: "x > 0"}}}, ""},
		{`{"cmd":"setBreakpoints","breakpoints":[3,{"line":4,"hitCondition":"% 2"}]}`,
			Command{Cmd: "setBreakpoints", Breakpoints: []Breakpoint{{Line: 3}, {Line: 4, HitCondition: "% 2"}}}, ""},
		{`{"cmd":"setBreakpoints"}`, Command{Cmd: "setBreakpoints", Breakpoints: []Breakpoint{}}, ""},
		{`{"cmd":"setWatches","watches":[{"expr":"x"},{"expr":"x + 1"},"y"]}`,
			Command{Cmd: "setWatches", Watches: []string{"x", "x + 1", "y"}}, ""},
		{`{"cmd":"setBreakpoints","breakpoints":[{"line":0}]}`, Command{}, "invalid line"},
		{`{"cmd":"setBreakpoints","breakpoints":[{"condition":"x"}]}`, Command{}, `missing "line"`},
		{`{"cmd":"setBreakpoints","breakpoints":{"line":1}}`, Command{}, "not a JSON command"},
		{`{"cmd":"setWatches","watches":[3]}`, Command{}, "watch 0"},
		{`{"cmd":"Pause"}`, Command{}, "unknown command"},
		{`{"cmd":null}`, Command{}, `missing "cmd"`},
		{`{}`, Command{}, `missing "cmd"`},
		{`null`, Command{}, `missing "cmd"`},
		{`"pause"`, Command{}, "not a JSON command"},
		{`{"cmd":"pause"}x`, Command{}, "trailing data"},
		{`{"cmd":"pause"`, Command{}, "not a JSON command"},
	} {
		got, err := ParseCommand([]byte(tc.line))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.line, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.line, err)
			continue
		}
		if mustJSON(t, got) != mustJSON(t, tc.want) {
			t.Errorf("%s: got %s, want %s", tc.line, mustJSON(t, got), mustJSON(t, tc.want))
		}
	}
}

func TestReadCommandsLines(t *testing.T) {
	in := "{\"cmd\":\"pause\"}\r\n\n   \nbad\n" + strings.Repeat("x", 100) + "\n{\"cmd\":\"continue\"}"
	var cmds, bad []string
	err := ReadCommands(strings.NewReader(in), 50, func(c Command) { cmds = append(cmds, c.Cmd) },
		func(r string) { bad = append(bad, r) })
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(cmds, ",") != "pause,continue" || len(bad) != 2 || !strings.Contains(bad[1], "longer than 50") {
		t.Fatalf("cmds %v bad %v", cmds, bad)
	}
}

// FuzzReadCommands feeds arbitrary input to the command reader: it never panics, every
// line is either a valid command or reported once, and a valid command survives a round
// trip through its JSON form.
func FuzzReadCommands(f *testing.F) {
	for _, s := range []string{
		`{"cmd":"enable","start_paused":true,"perf":false}` + "\n",
		`{"cmd":"setBreakpoints","breakpoints":[{"line":12},{"line":20,"condition":"x > 0"}]}` + "\n",
		`{"cmd":"setWatches","watches":[{"expr":"x"},"y"]}` + "\r\n" + `{"cmd":"pause"}`,
		"garbage\n\n{\"cmd\":5}\n",
		`{"cmd":"continue"}{"cmd":"step"}`,
		"\x00\xff\n{\"cmd\":\"terminate\"}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		const max = 256
		lines := 0
		for _, l := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 || len(l) > max {
				lines++
			}
		}
		n := 0
		err := ReadCommands(bytes.NewReader(data), max, func(c Command) {
			n++
			if !knownCommands[c.Cmd] {
				t.Fatalf("unknown command %q accepted", c.Cmd)
			}
			for _, b := range c.Breakpoints {
				if b.Line <= 0 {
					t.Fatalf("breakpoint line %d accepted", b.Line)
				}
			}
			again, err := ParseCommand(roundTrip(t, c))
			if err != nil || mustJSON(t, again) != mustJSON(t, c) {
				t.Fatalf("round trip of %+v: %+v, %v", c, again, err)
			}
		}, func(string) { n++ })
		if err != nil {
			t.Fatal(err)
		}
		if n > lines {
			t.Fatalf("%d results for %d non-blank lines", n, lines)
		}
	})
}

// roundTrip renders a command in the wire form the document shows.
func roundTrip(t *testing.T, c Command) []byte {
	m := map[string]any{"cmd": c.Cmd}
	if c.StartPaused != nil {
		m["start_paused"] = *c.StartPaused
	}
	if c.Perf != nil {
		m["perf"] = *c.Perf
	}
	if c.StopOnException != nil {
		m["stop_on_exception"] = *c.StopOnException
	}
	if c.Cmd == CmdSetBreakpoints {
		var bps []map[string]any
		for _, b := range c.Breakpoints {
			bps = append(bps, map[string]any{"line": b.Line, "condition": b.Condition, "hit_condition": b.HitCondition})
		}
		m["breakpoints"] = bps
	}
	if c.Cmd == CmdSetWatches {
		var ws []map[string]string
		for _, w := range c.Watches {
			ws = append(ws, map[string]string{"expr": w})
		}
		m["watches"] = ws
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
