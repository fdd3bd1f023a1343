package engine

import (
	"fmt"
)

// VariablePager is implemented by targets that can list a slice of a reference's children
// without producing them all, so that a client opens a list of a million items at once
// and pages through it (DAP's variables start/count).
type VariablePager interface {
	// VariablesPage returns at most count children of ref from the start-th on (count 0:
	// all the rest).
	VariablesPage(ref, start, count int) ([]Variable, error)
}

// VariablesPage returns the children of ref from start on, at most count of them (count 0:
// all the rest). Targets that cannot page have their full list sliced.
func (s *Session) VariablesPage(ref, start, count int) ([]Variable, error) {
	if start < 0 || count < 0 {
		return nil, fmt.Errorf("variables: start %d and count %d must not be negative", start, count)
	}
	if err := s.checkStopped("get variables"); err != nil {
		return nil, err
	}
	if p, ok := s.t.(VariablePager); ok {
		return p.VariablesPage(ref, start, count)
	}
	all, err := s.t.Variables(ref)
	if err != nil {
		return nil, err
	}
	return Page(all, start, count), nil
}

// Page is the slice of list from start, at most count long (count 0: all the rest).
func Page[T any](list []T, start, count int) []T {
	if start >= len(list) {
		return nil
	}
	list = list[start:]
	if count > 0 && count < len(list) {
		list = list[:count]
	}
	return list
}
