package console

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/polydbg/polydbg/engine"
)

// TestPausedBetweenFramesShowsTheFrame: a cartridge paused (or frame-stepped) between two
// frames has no Kite frame running, yet its stack is the frame about to run and its
// variables are the globals, as for any stopped Kite program.
func TestPausedBetweenFramesShowsTheFrame(t *testing.T) {
	cart, err := Load("../examples/cartridges/colorsquare")
	if err != nil {
		t.Fatal(err)
	}
	con, err := New(cart, Options{FPS: 30})
	if err != nil {
		t.Fatal(err)
	}
	s := engine.NewSession(con.Target())
	defer s.Close()
	if err := s.Start(false); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	seq := s.Seq()
	if err := s.Pause(); err != nil {
		t.Fatal(err)
	}
	for _, step := range []string{"pause", "frame step"} {
		h, err := s.WaitStop(ctx, seq)
		if err != nil || h.State != engine.Stopped {
			t.Fatalf("%s: %+v %v", step, h, err)
		}
		frames, err := s.Stack()
		if err != nil || len(frames) != 1 || frames[0].Func != "frame" || filepath.Base(frames[0].Location.File) != "main.kite" || frames[0].Location.Line != h.Stop.Location.Line {
			t.Fatalf("%s: stack %+v, %v (stop at %+v)", step, frames, err, h.Stop.Location)
		}
		scopes, err := s.Scopes(0)
		if err != nil || len(scopes) != 1 || scopes[0].Name != "Globals" {
			t.Fatalf("%s: scopes %+v, %v", step, scopes, err)
		}
		vars, err := s.Variables(scopes[0].Ref)
		found := false
		for _, v := range vars {
			found = found || v.Name == "color" && v.Type == "int"
		}
		if err != nil || !found {
			t.Fatalf("%s: globals %+v, %v", step, vars, err)
		}
		if _, err := s.Scopes(1); err == nil {
			t.Fatalf("%s: a second frame has scopes", step)
		}
		seq = s.Seq()
		if err := s.Resume(engine.StepFrame); err != nil {
			t.Fatal(err)
		}
	}
}
