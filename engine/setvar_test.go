package engine

import (
	"context"
	"errors"
	"testing"
	"time"
)

// setterFake is fakeTarget with one settable variable, "i", the round.
type setterFake struct{ *fakeTarget }

func (f setterFake) SetVariable(frame, ref int, name, value string) (Variable, error) {
	if name != "i" {
		return Variable{}, ErrNotFound
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	n := 0
	for _, c := range value {
		n = n*10 + int(c-'0')
	}
	f.i = n
	return Variable{Name: "i", Value: value, Type: "int"}, nil
}

func TestSetVariableChecksStateAndCapability(t *testing.T) {
	f := newFake(3, 10)
	s := NewSession(setterFake{f})
	t.Cleanup(func() { _ = s.Close() })
	if !s.CanSetVariables() {
		t.Fatal("a setter target says it cannot set variables")
	}
	if _, err := s.SetVariable(0, 0, "i", "4"); !errors.Is(err, ErrNotStarted) {
		t.Fatalf("before start: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	seq := s.Seq()
	if err := s.Start(true); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WaitStop(ctx, seq); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetVariable(0, 0, " ", "4"); !errors.Is(err, ErrInvalid) {
		t.Fatalf("empty name: %v", err)
	}
	v, err := s.SetVariable(0, 0, "i", " 7 ")
	if err != nil || v.Value != "7" {
		t.Fatalf("SetVariable = %+v, %v", v, err)
	}
	f.mu.Lock()
	got := f.i
	f.mu.Unlock()
	if got != 7 {
		t.Fatalf("the target's i is %d after setting 7", got)
	}
	plain := NewSession(newFake(3, 1))
	t.Cleanup(func() { _ = plain.Close() })
	if _, err := plain.SetVariable(0, 0, "i", "1"); !errors.Is(err, ErrUnsupported) || plain.CanSetVariables() {
		t.Fatalf("a target without the capability: %v", err)
	}
}
