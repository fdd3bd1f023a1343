package engine

import (
	"testing"
)

// libFake is a fake whose continues can stop at library events.
type libFake struct{ *fakeTarget }

func (l libFake) CatchLibraries(on bool) error { l.catchLibs.Store(on); return nil }

// A breakpoint in a library's source asked for in a set (DAP's setBreakpoints) before the
// library is loaded is kept pending, with an id; the libraries loaded, it is placed, told
// by a change event, and reached. A file no library may bring is not kept.
func TestPendingBreakpointPlacedWithLibraries(t *testing.T) {
	s, f := fakeSession(t, 4, 2)
	f.libLine = 3
	sub := s.Subscribe()
	got := s.SetBreakpoints("/lib.fake", []BreakpointSpec{{Line: 7}})
	if got[0].Verified || got[0].ID == 0 || got[0].Message == "" {
		t.Fatalf("before the library is loaded: %+v, want unverified with an id and why", got[0])
	}
	if none := s.SetBreakpoints("/nowhere.fake", []BreakpointSpec{{Line: 1}}); none[0].ID != 0 {
		t.Errorf("a file no library brings was kept: %+v", none[0])
	}
	seq := s.Seq()
	if err := s.Start(false); err != nil {
		t.Fatal(err)
	}
	h := wait(t, s, seq)
	if h.Stop.Reason != ReasonBreakpoint || h.Stop.BreakpointID != got[0].ID || h.Stop.Location.Line != 3 {
		t.Fatalf("stop %+v, want breakpoint %d at line 3", h.Stop, got[0].ID)
	}
	placed := false
	for {
		ev, ok, _ := sub.TryNext()
		if !ok {
			break
		}
		placed = placed || ev.Kind == EventBreakpointChanged && ev.Breakpoint.ID == got[0].ID && ev.Breakpoint.Verified
	}
	if !placed {
		t.Error("no change event told the breakpoint was placed")
	}
}

// catch load REGEX stops at a library event one of whose loads matches, numbered and
// counted; catch unload does not take a load; a library event no catchpoint takes lets
// the program go on; StopOnLibraryEvents stops at every event, unnumbered.
func TestCatchLibraries(t *testing.T) {
	for _, tc := range []struct {
		name   string
		set    func(s *Session) (int, error)
		stops  bool
		caught bool
	}{
		{"load matching", func(s *Session) (int, error) { c, err := s.CatchLibraries(false, "plug"); return c.ID, err }, true, true},
		{"load not matching", func(s *Session) (int, error) { c, err := s.CatchLibraries(false, "other"); return c.ID, err }, false, false},
		{"unload", func(s *Session) (int, error) { c, err := s.CatchLibraries(true, ""); return c.ID, err }, false, false},
		{"every event", func(s *Session) (int, error) { return 0, s.StopOnLibraryEvents(true) }, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(4, 1)
			f.libEventAt, f.libChanges = 2, LibraryChangeText([]LibraryChange{{Path: "/tmp/libplug.so"}})
			s := NewSession(libFake{f})
			t.Cleanup(func() { _ = s.Close() })
			id, err := tc.set(s)
			if err != nil {
				t.Fatal(err)
			}
			seq := s.Seq()
			if err := s.Start(false); err != nil {
				t.Fatal(err)
			}
			h := wait(t, s, seq)
			if !tc.stops {
				if h.State != Exited {
					t.Fatalf("%+v, want the program to go on to its end", h)
				}
				return
			}
			if h.Stop == nil || h.Stop.Reason != ReasonLibrary || LibraryChanges(*h.Stop)[0].Path != "/tmp/libplug.so" {
				t.Fatalf("%+v, want the library event's stop", h)
			}
			if tc.caught && (h.Stop.BreakpointID != id || s.Catchpoints()[0].Hits != 1) {
				t.Errorf("stop numbered %d, catchpoint %+v", h.Stop.BreakpointID, s.Catchpoints()[0])
			}
			if !tc.caught && h.Stop.BreakpointID != 0 {
				t.Errorf("an event stop numbered %d", h.Stop.BreakpointID)
			}
		})
	}
	if _, err := NewSession(newFake(1, 1)).CatchLibraries(false, ""); err == nil {
		t.Error("catch load on a target without library events")
	}
}

// A library event's text, whatever it holds, reads as changes that write back the same
// text (LibraryChangeText after LibraryChanges is a fixed point).
func FuzzLibraryChanges(f *testing.F) {
	f.Add("loaded /tmp/libplug.so\nunloaded /lib/x.so\n")
	f.Add("loaded \nunloaded\nloaded a\nb")
	f.Add("")
	f.Fuzz(func(t *testing.T, text string) {
		once := LibraryChangeText(LibraryChanges(Stop{Reason: ReasonLibrary, Text: text}))
		twice := LibraryChangeText(LibraryChanges(Stop{Reason: ReasonLibrary, Text: once}))
		if once != twice {
			t.Fatalf("%q reads as %q, then %q", text, once, twice)
		}
	})
}
