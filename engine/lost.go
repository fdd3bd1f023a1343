package engine

// LossReporter is implemented by the session's side of a target (its Handler). A target
// calls Lost when it can no longer be debugged at all (the stub went away, the connection
// failed): the session ends as terminated, and its terminated event (Event.Text) and its
// Halt (Reason) say why, so a front end can tell a lost target from a terminate it asked for.
type LossReporter interface {
	Lost(err error)
}

// ReportLost tells h that the target is lost: through LossReporter when h has it, else as
// a console line and the end.
func ReportLost(h Handler, err error) {
	if l, ok := h.(LossReporter); ok {
		l.Lost(err)
		return
	}
	h.Output("console", err.Error()+"\n")
	h.Terminated()
}

// Lost implements LossReporter: the reason is written as console output (front ends that
// only show output see it) and carried by the terminated event.
func (h handler) Lost(err error) {
	h.Output("console", err.Error()+"\n")
	h.s.endWith(Terminated, 0, err.Error())
}
