package engine

// Names is implemented by targets that can list the names a person types: functions (for
// break) and source files (for FILE:LINE). Front ends use it for completion and pickers.
type Names interface {
	FunctionNames() []string
	// SourceFiles are the program's source files, each as the target matches it (a name a
	// breakpoint may give).
	SourceFiles() []string
}
