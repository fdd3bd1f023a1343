package engine

// CatchUp hands fn, in order, the queued events up to the one numbered s.Seq() when it is
// called, so that a front end has told its client everything before it handles a command,
// yet a program that never stops printing cannot keep it from its commands. With toHalt it
// drains again while the last event handled (after, before this call) is older than
// s.LastHalt(): a stop or end that came meanwhile is told before the command acts on it
// (the debuggee is then halted, so this ends). It returns the last event handled (after when
// none) and whether the subscription has ended, with nothing more to come.
func (sub *Subscription) CatchUp(s *Session, after uint64, toHalt bool, fn func(Event)) (last uint64, ended bool) {
	last = after
	for {
		upTo := s.Seq()
		for {
			e, ok, end := sub.TryNext()
			if !ok {
				if end {
					return last, true
				}
				break
			}
			fn(e)
			last = e.Seq
			if e.Seq >= upTo {
				break
			}
		}
		if !toHalt || last >= s.LastHalt().Seq {
			return last, false
		}
	}
}
