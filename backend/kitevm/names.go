package kitevm

// FunctionNames implements engine.Names: the program's named functions.
func (t *Target) FunctionNames() []string {
	var out []string
	for _, f := range t.prog.Funcs {
		if f.Name != "" {
			out = append(out, f.Name)
		}
	}
	return out
}

// SourceFiles implements engine.Names: the program's file as it was given (the VM compares
// absolute paths).
func (t *Target) SourceFiles() []string { return []string{t.prog.File} }
