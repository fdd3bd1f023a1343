package wirejson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

type loc struct {
	File   string `json:"file"`
	Line   int    `json:"line"`
	Column int    `json:"column"`
}

type watch struct {
	Expr  string  `json:"expr"`
	Value *string `json:"value,omitempty"`
	Error string  `json:"error,omitempty"`
}

type msg struct {
	Type    string            `json:"type"`
	Data    any               `json:"data"`
	Loc     *loc              `json:"location,omitempty"`
	Env     map[string]string `json:"env"`
	Watches []watch           `json:"watches"`
	ID      int               `json:"id,omitempty"`
	U       uint16            `json:"u"`
	Ok      bool              `json:"ok,omitempty"`
	NoTag   string
	Skip    string `json:"-"`
	private int
	Float   any      `json:"float,omitempty"` // a float inside an interface: encoding/json's
	Raw     any      `json:"raw,omitempty"`
	Names   []string `json:"names"`
}

// golden encodes v as the front ends did before: encoding/json, no HTML escaping.
func golden(t testing.TB, v any) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return string(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}

func TestAppendMatchesEncodingJSON(t *testing.T) {
	val := "v <&> \u2028"
	cases := []any{
		nil, "plain", 42, true, []int(nil), []int{}, map[string]string(nil),
		msg{},
		msg{Type: "event", Data: loc{"a.kite", 3, 4}, Loc: &loc{"é\"\\\n\t\x01\x7f", -1, 0},
			Env: map[string]string{"b": "2", "a": "1", "<": "\xff"}, Watches: []watch{{Expr: "x", Value: &val}, {Expr: "y", Error: "bad"}},
			ID: 7, U: 9, Ok: true, NoTag: "n", Skip: "s", private: 1, Float: 1.5e300, Raw: json.RawMessage(`{"a": 1}`), Names: []string{}},
		&msg{Data: map[string]any{"k": []any{1, "two", nil, 2.5}}},
		struct {
			A json.RawMessage `json:"a"`
			B []byte          `json:"b"`
		}{json.RawMessage(`[1, 2]`), []byte("hi")},
		struct {
			X string `json:"x,string"`
		}{"q"},
		// promoted fields of embedded structs, in encoding/json's order; conflicts and
		// embedded pointers are encoding/json's
		func() any { r := StepReq{Arguments: stepArgs{ThreadID: 1}}; r.Seq, r.Type = 4, "request"; return r }(),
		struct {
			Req
			Body any `json:"body,omitempty"`
		}{Req{Head{1, "event"}, "x"}, &loc{"f", 1, 2}},
		struct {
			Head
			Seq string `json:"seq"`
		}{Head{1, "t"}, "shadows"},
		struct {
			*Head
			Tagged Head `json:"tagged"`
		}{&Head{2, "p"}, Head{3, "q"}},
		struct {
			Head `json:"head"`
		}{Head{2, "p"}},
	}
	for _, c := range cases {
		got, err := Append([]byte("pre:"), c)
		if err != nil {
			t.Fatal(err)
		}
		if want := "pre:" + golden(t, c); string(got) != want {
			t.Errorf("%T:\n got %s\nwant %s", c, got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"", "a", "\"\\", "\x00\x1f\b\f", "\u2028\u2029", "\xff\xfe", "日本", "<>&"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v := watch{Expr: s, Error: s}
		got, _ := Append(nil, v)
		if want := golden(t, v); string(got) != want {
			t.Fatalf("got %s want %s", got, want)
		}
		var r StepReq // promoted fields, a struct field
		r.Type, r.Command, r.Arguments.Granularity, r.Arguments.Source.Path = s, s, gran(s), s
		got, _ = Append(nil, r)
		if want := golden(t, r); string(got) != want {
			t.Fatalf("got %s want %s", got, want)
		}
	})
}

type request struct {
	Type    string          `json:"type"`
	Command string          `json:"command"`
	Params  json.RawMessage `json:"params"`
	Line    int8            `json:"line"`
	Flag    *bool           `json:"flag"`
	Name    *string         `json:"name"`
	List    []string        `json:"list"`
}

// Head, Req, StepReq: a DAP-like request, its header embedded, its arguments a struct.
type Head struct {
	Seq  int    `json:"seq"`
	Type string `json:"type"`
}

type Req struct {
	Head
	Command string `json:"command"`
}

type gran string

type stepArgs struct {
	ThreadID    int  `json:"threadId"`
	Granularity gran `json:"granularity,omitempty"`
	Source      struct {
		Path string `json:"path"`
		Ref  int    `json:"sourceReference,omitempty"`
	} `json:"source"`
	Opts *struct {
		Hex bool `json:"hex"`
	} `json:"format,omitempty"`
}

type StepReq struct {
	Req
	Arguments stepArgs `json:"arguments"`
}

// decodeBoth decodes data with Unmarshal and with encoding/json into copies of start and
// fails when they differ in result or in failing; it reports whether Decode took it.
func decodeBoth[T any](t *testing.T, start T, data []byte) (fast bool) {
	a, b := start, start
	errA, errB := Unmarshal(data, &a), json.Unmarshal(data, &b)
	if (errA == nil) != (errB == nil) || !reflect.DeepEqual(a, b) {
		t.Fatalf("%q:\n fast %+v (%v)\n json %+v (%v)", data, a, errA, b, errB)
	}
	c := start
	fast = Decode(data, &c)
	if fast && !reflect.DeepEqual(c, b) {
		t.Fatalf("%q: Decode %+v, json %+v", data, c, b)
	}
	var fresh, zero T
	if DecodeFresh(data, &fresh) != fast {
		t.Fatalf("%q: DecodeFresh %v, Decode %v", data, !fast, fast)
	} else if fast {
		_ = json.Unmarshal(data, &zero)
		if !reflect.DeepEqual(fresh, zero) {
			t.Fatalf("%q: DecodeFresh %+v, json %+v", data, fresh, zero)
		}
	}
	return fast
}

var (
	startRequest = request{Type: "old", Line: 1}
	startStep    = func() StepReq {
		var r StepReq
		r.Seq, r.Command, r.Arguments.Source.Ref = 3, "old", 9
		return r
	}()
)

func TestDecodeMatchesEncodingJSON(t *testing.T) {
	fast := []string{
		`{"type":"command","command":"stepInto","params":{}}`,
		` { "command" : "x" , "params" : { "a" : 1, "b": "é", "c": true } , "line": -128 } `,
		`{"params":"s","flag":false,"name":"n"}`, `{}`, `{"params":123}`,
		`{"type":"a","type":"b"}`, `{"params":{"a":{"b":{}}}}`,
	}
	slow := []string{
		`{"type":"a\"b"}`, `{"Command":"x"}`, `{"other":1}`, `{"line":128}`, `{"line":1.5}`,
		`{"params":null}`, `{"flag":null}`, `{"type":null}`, `{"list":["a"]}`,
		`{"type":"x"} x`, `{"type":"x",}`, `[1]`, `{"type":"\xff"}`, `{"command":"stepInto", "x`, `{"line":01}`,
		`{"params":[1,2]}`, `{"params":{"a":{"b":{"c":{}}}}}`,
	}
	for _, s := range fast {
		if !decodeBoth(t, startRequest, []byte(s)) {
			t.Errorf("%s: not decoded by the fast path", s)
		}
	}
	for _, s := range slow {
		if decodeBoth(t, startRequest, []byte(s)) {
			t.Errorf("%s: decoded by the fast path", s)
		}
	}
	// embedded structs (promoted fields) and struct fields
	fastStep := []string{
		`{"seq":9,"type":"request","command":"next","arguments":{"threadId":1}}`,
		`{"seq":9,"arguments":{"threadId":1,"granularity":"line","source":{"path":"/a.kite"}},"command":"next"}`,
		`{"arguments":{"source":{}},"arguments":{"source":{"path":"p"}}}`, `{}`,
	}
	slowStep := []string{
		`{"Head":{"seq":1}}`, `{"arguments":null}`, `{"arguments":{"source":null}}`, `{"arguments":{"format":{"hex":true}}}`,
		`{"arguments":{"threadId":"1"}}`, `{"arguments":{"threadId":1,"x":2}}`, `{"arguments":{"source":{"path":"\\a"}}}`,
		`{"arguments":{"source":{"path":"p"}}`, `{"arguments":[]}`,
	}
	for _, s := range fastStep {
		if !decodeBoth(t, startStep, []byte(s)) {
			t.Errorf("%s: not decoded by the fast path", s)
		}
	}
	for _, s := range slowStep {
		if decodeBoth(t, startStep, []byte(s)) {
			t.Errorf("%s: decoded by the fast path", s)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"type":"command","command":"stepInto","params":{}}`, `{"line":-1,"flag":true}`, `{"params":{"a":[1]}}`} {
		f.Add([]byte(s))
	}
	f.Add([]byte(`{"seq":9,"type":"request","command":"next","arguments":{"threadId":1,"source":{"path":"a"}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		decodeBoth(t, startRequest, data)
		decodeBoth(t, startStep, data)
	})
}

// A step's command and event cost no allocation beyond the message itself.
func TestAllocations(t *testing.T) {
	line := []byte(`{"type":"command","command":"stepInto","params":{}}`)
	var req request
	if n := testing.AllocsPerRun(100, func() { _ = Unmarshal(line, &req) }); n > 3 { // two strings, the params
		t.Errorf("Unmarshal: %v allocations", n)
	}
	v := msg{Type: "event", Data: loc{"a.kite", 3, 4}, Names: []string{"a"}}
	buf := make([]byte, 0, 512)
	if n := testing.AllocsPerRun(100, func() { buf, _ = Append(buf[:0], &v) }); n > 0 {
		t.Errorf("Append: %v allocations", n)
	}
}

// A short string decoded again is the one kept, without an allocation; a long one, or one
// that another took the slot of, is still right.
func TestInternReusesShortStrings(t *testing.T) {
	b := []byte("stepInto")
	first := intern(b)
	if n := testing.AllocsPerRun(100, func() {
		if intern(b) != "stepInto" {
			t.Fatal("wrong string")
		}
	}); n != 0 {
		t.Errorf("a kept string allocates %v times", n)
	}
	for i := range 10 * internSlots { // fill every slot with others
		if s := fmt.Sprint("k", i); intern([]byte(s)) != s {
			t.Fatalf("intern(%q) is wrong", s)
		}
	}
	if intern(b) != first {
		t.Error("intern lost the string")
	}
	long := strings.Repeat("x", internMax+1)
	if intern([]byte(long)) != long || intern(nil) != "" {
		t.Error("long or empty strings are wrong")
	}
}

// A broken line's command and number are read back from what it shows.
func TestSalvage(t *testing.T) {
	for line, want := range map[string]string{
		`{"seq":12,"type":"request","command":"stackTrace","arguments":`: "12 stackTrace",
		`{"seq": 13 , "command" :  "next"`:                               "13 next",
		`{"seq":1234567890123,"command":"next"`:                          "- next",
		`{"command":"x1","seq":7}`:                                       "7 -",
		`{"args":{"command":3},"command":"start"`:                        "- start",
		`{"seq":"9","command":"` + strings.Repeat("a", 41) + `"}`:        "- -",
		`{"seq":5`:        "- -",
		`{{{{`:            "- -",
		`"seq" "command"`: "- -",
	} {
		seq, word := "-", "-"
		if n, ok := SalvageInt([]byte(line), "seq"); ok {
			seq = fmt.Sprint(n)
		}
		if w, ok := SalvageWord([]byte(line), "command"); ok {
			word = w
		}
		if got := seq + " " + word; got != want {
			t.Errorf("%s: %q, want %q", line, got, want)
		}
	}
}

// FuzzSalvage: any bytes are read without a panic, and what is found is what was asked for.
func FuzzSalvage(f *testing.F) {
	for _, seed := range []string{`{"seq":12,"command":"next"`, `"seq":`, `"command":"`, `"seq" : 9}`, `"command":""`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if n, ok := SalvageInt(data, "seq"); ok && (n < 0 || n > 999_999_999) {
			t.Errorf("seq %d", n)
		}
		if w, ok := SalvageWord(data, "command"); ok && (w == "" || len(w) > 40 || !bytes.Contains(data, []byte(w))) {
			t.Errorf("command %q", w)
		}
	})
}
