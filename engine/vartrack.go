package engine

// VarTracker keeps a snapshot of a frame's variables from one stop to the next, so that a
// stepping front end reports what each step changed without reading them twice a step: the
// variables a step's stop reads are what the next step compares with, and the two buffers
// take turns. The zero value holds no snapshot. It is not safe for concurrent use.
type VarTracker struct {
	snap, spare []ScopedVariable // the snapshot, and the other buffer
	held        bool             // snap is a snapshot
}

// Snapshot records frame's variables (every scope, as FrameVariables lists them) unless a
// snapshot is held: a front end calls it before a step, which the last step's Update may
// already have done. Variables that cannot be read leave no snapshot.
func (t *VarTracker) Snapshot(s *Session, frame int) {
	if !t.held {
		vs, err := s.AppendFrameVariables(t.snap[:0], frame)
		t.snap, t.held = vs, err == nil
	}
}

// Update reads frame's variables at a stop and returns those new or changed since the
// snapshot, as ChangedVariables does (none without a snapshot, or when they cannot be
// read); they become the snapshot.
func (t *VarTracker) Update(s *Session, frame int) []ScopedVariable {
	vs, err := s.AppendFrameVariables(t.spare[:0], frame)
	var out []ScopedVariable
	if err == nil && t.held {
		out = ChangedVariables(t.snap, vs)
	}
	t.snap, t.spare, t.held = vs, t.snap, err == nil
	return out
}

// Reset drops the snapshot: the variables may have changed otherwise than by a step (a
// continue, an evaluation with side effects), and the next step takes its own.
func (t *VarTracker) Reset() { t.held = false }
