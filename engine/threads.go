package engine

// ThreadSelector is implemented by targets whose threads can be selected, as gdb's
// `thread N`: the stack, variables, registers and steps then apply to the selected thread,
// while the other threads stay stopped (all-stop). A stop selects the thread that stopped.
type ThreadSelector interface {
	SelectThread(id uint64) error
	SelectedThread() uint64
}
