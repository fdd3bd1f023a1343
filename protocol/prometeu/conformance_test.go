package prometeu

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/polydbg/polydbg/console"
)

var update = flag.Bool("update", false, "rewrite the runtime messages of examples/*.jsonl from a real run")

func loadSchema(t *testing.T) validator {
	t.Helper()
	data, err := os.ReadFile("protocol.json")
	if err != nil {
		t.Fatal(err)
	}
	var root map[string]any
	if err := json.Unmarshal(data, &root); err != nil {
		t.Fatal(err)
	}
	return validator{root: root}
}

func decode(line []byte) (msg, error) {
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	var m msg
	return m, d.Decode(&m)
}

// runtimeTypes are the types of the messages the runtime sends.
var runtimeTypes = []string{"handshake", "response", "breakpointHit", "stopped", "resumed", "log", "telemetry", "cert", "exited", "terminated"}

// isClient reports whether a message goes from a client to the runtime: its type is not
// one the runtime sends (the invalid requests of errors.jsonl included).
func isClient(m msg) bool {
	typ, _ := m["type"].(string)
	return !slices.Contains(runtimeTypes, typ)
}

// asynchronous events may come between the messages an example shows: the replay skips
// them when the example does not expect them there.
var asynchronous = []string{"resumed", "log", "telemetry", "cert"}

// TestConformance replays every example against a runtime started with --wait and
// --fps 0 on the cartridge its handshake names: it sends the client's messages and
// expects the runtime's, equal field by field, in order. Every message the server sends
// (the skipped ones too) must be valid against protocol.json, and so must every client
// message of the examples except those of errors.jsonl, which shows invalid requests.
func TestConformance(t *testing.T) {
	v := loadSchema(t)
	files, _ := filepath.Glob("examples/*.jsonl")
	if len(files) < 5 {
		t.Fatalf("examples: %v", files)
	}
	cartridges := map[string]string{"ColorSquare": "colorsquare", "OverBudget": "overbudget"}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
			var msgs []msg
			for i, l := range lines {
				m, err := decode(l)
				if err != nil {
					t.Fatalf("line %d: %v", i+1, err)
				}
				msgs = append(msgs, m)
			}
			if msgs[0]["type"] != "handshake" {
				t.Fatal("an example starts with the handshake")
			}
			cartMsg, _ := msgs[0]["cartridge"].(map[string]any)
			title := fmt.Sprint(cartMsg["title"])
			if *update && cartMsg == nil {
				title = "ColorSquare"
				if strings.Contains(file, "cert") {
					title = "OverBudget"
				}
			}
			rt := startRuntime(t, cartDir(cartridges[title]), console.Options{}, true)
			c := dial(t, rt.addr)
			var out [][]byte
			for i, want := range msgs {
				if isClient(want) {
					if !strings.HasSuffix(file, "errors.jsonl") {
						if err := v.validate(v.root, map[string]any(want), "$"); err != nil {
							t.Fatalf("line %d (client): %v", i+1, err)
						}
					}
					c.sendLine(string(lines[i]))
					out = append(out, lines[i])
					continue
				}
				for {
					if testing.Verbose() {
						t.Logf("waiting for line %d: %s", i+1, lines[i])
					}
					got := c.read()
					raw, _ := json.Marshal(got)
					if err := v.validate(v.root, map[string]any(got), "$"); err != nil {
						t.Fatalf("line %d: the server sent an invalid message %s: %v", i+1, raw, err)
					}
					same := got["type"] == want["type"] && fmt.Sprint(got["id"]) == fmt.Sprint(want["id"])
					if !same {
						if slices.Contains(asynchronous, fmt.Sprint(got["type"])) {
							continue
						}
						t.Fatalf("line %d: got %s, want %s", i+1, raw, lines[i])
					}
					if *update {
						out = append(out, reencode(got))
						break
					}
					if !jsonDeepEqual(got, want) {
						if slices.Contains(asynchronous, fmt.Sprint(got["type"])) && got["type"] != "log" {
							continue
						}
						t.Fatalf("line %d: got  %s\nwant %s", i+1, raw, lines[i])
					}
					break
				}
			}
			if *update {
				if err := os.WriteFile(file, append(bytes.Join(out, []byte("\n")), '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// reencode writes a message as the server does: type first, then fields by name.
func reencode(m msg) []byte {
	typ := m["type"].(string)
	f := fields{}
	for k, v := range m {
		if k != "type" {
			f[k] = v
		}
	}
	return encode(typ, f)
}

func jsonDeepEqual(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	var x, y any
	json.Unmarshal(ja, &x)
	json.Unmarshal(jb, &y)
	return show(x) == show(y)
}

// Every example line is valid JSON and every runtime message in them is valid against
// the schema (the replay checks the rest).
func TestSchemaRejectsBadMessages(t *testing.T) {
	v := loadSchema(t)
	for _, bad := range []string{
		`{"type":"setBreakpoint"}`,
		`{"type":"setBreakpoint","pc":"3"}`,
		`{"type":"fly"}`,
		`{"type":"breakpointHit","pc":3}`,
		`{"type":"response","ok":true,"request":"getState"}`,
		`{"type":"response","ok":false}`,
		`{"type":"cert","rule":"speed","used":1,"limit":0,"frame_index":0}`,
		`{"type":"handshake","protocol_version":2,"runtime_version":"x","cartridge":{"app_id":1,"title":"t","app_version":"1","app_mode":"Game"}}`,
	} {
		m, _ := decode([]byte(bad))
		if err := v.validate(v.root, map[string]any(m), "$"); err == nil {
			t.Errorf("%s: valid", bad)
		}
	}
	for _, good := range []string{
		`{"type":"step","id":[1]}`,
		`{"type":"response","ok":false,"error":"x"}`,
		`{"type":"log","level":"warn","source":"cartridge","msg":"m"}`,
	} {
		m, _ := decode([]byte(good))
		if err := v.validate(v.root, map[string]any(m), "$"); err != nil {
			t.Errorf("%s: %v", good, err)
		}
	}
}
