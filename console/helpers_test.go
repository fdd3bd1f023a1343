package console

import (
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/polydbg/polydbg/engine"
)

// run runs a cartridge to its end (opts.Frames should be set) and returns its console
// events and the session's output.
type result struct {
	con    *Console
	events []Event
	output string
	code   int
	kind   engine.EventKind
}

func runCart(t *testing.T, dir string, opts Options) *result {
	t.Helper()
	cart, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	return runLoaded(t, cart, opts)
}

func runLoaded(t *testing.T, cart *Cartridge, opts Options) *result {
	t.Helper()
	con, err := New(cart, opts)
	if err != nil {
		t.Fatal(err)
	}
	r := &result{con: con}
	var mu sync.Mutex
	con.SetEventHandler(func(e Event) {
		mu.Lock()
		r.events = append(r.events, e)
		mu.Unlock()
	})
	s := engine.NewSession(con.Target())
	defer s.Close()
	sub := s.Subscribe()
	if err := s.Start(false); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(30 * time.Second)
	for {
		select {
		case e, ok := <-sub.Events():
			if !ok {
				t.Fatal("events ended without exit")
			}
			switch e.Kind {
			case engine.EventOutput:
				r.output += e.Text
			case engine.EventStopped:
				if e.Stop.Reason == engine.ReasonException {
					r.output += "exception: " + e.Stop.Text + "\n"
					if err := s.Continue(); err != nil {
						t.Fatal(err)
					}
					continue
				}
				t.Fatalf("unexpected stop %s: %s", e.Stop.Reason, e.Stop.Text)
			case engine.EventExited, engine.EventTerminated:
				r.kind, r.code = e.Kind, e.ExitCode
				mu.Lock()
				defer mu.Unlock()
				return r
			}
		case <-deadline:
			t.Fatal("timed out")
		}
	}
}

// cart writes a cartridge with the given source and limits JSON into a temp dir.
func cart(t *testing.T, src, limits string) string {
	t.Helper()
	dir := t.TempDir()
	m := `{"magic":"PMTU","cartridge_version":1,"app_id":7,"title":"T","app_version":"1.0","app_mode":"Game","entrypoint":"main.kite"`
	if limits != "" {
		m += `,"limits":` + limits
	}
	m += "}"
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(m), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "main.kite"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func eventsOf(evs []Event, kind string) []Event {
	var out []Event
	for _, e := range evs {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}
