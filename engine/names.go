package engine

// Names is implemented by targets that can list the names a person types: functions (for
// break) and source files (for FILE:LINE). Front ends use it for completion and pickers.
type Names interface {
	FunctionNames() []string
	// SourceFiles are the program's source files, each as the target matches it (a name a
	// breakpoint may give).
	SourceFiles() []string
}

// FunctionDecl is a function as its source declares it (gdb's info functions).
type FunctionDecl struct {
	Text string // "int area(struct point *, int);"
	File string
	Line int // of the declaration
}

// FunctionDeclarer is implemented by targets that know how their functions are declared.
type FunctionDeclarer interface {
	FunctionDecl(name string) (FunctionDecl, bool)
}

// TypeDecl is a named type as its source declares it (gdb's info types).
type TypeDecl struct {
	Name string // what a search matches: "point" for struct point
	Text string // "struct point;", "typedef struct point point_t;", "int" for a base type
	File string
	Line int // of the declaration; 0 for a base type
}

// TypeDeclarer is implemented by targets that can list their named types.
type TypeDeclarer interface {
	TypeDecls() []TypeDecl
}

// VariableDecl is a global or static variable as its source declares it (gdb's info
// variables).
type VariableDecl struct {
	Name   string
	Text   string // "int counter;", "static int calls;"
	File   string
	Line   int
	Static bool // file scope only
}

// VariableDeclarer is implemented by targets that can list their global and static
// variables.
type VariableDeclarer interface {
	VariableDecls() []VariableDecl
}

// Symbol is a name of the program's (or a loaded library's) symbol table that no debug
// information describes: gdb's non-debugging symbols.
type Symbol struct {
	Name string
	Addr uint64
	Data bool // data, not code
}

// SymbolTables is implemented by targets that read their program's symbol tables: its
// non-debugging symbols by address, then each loaded library's.
type SymbolTables interface {
	NondebugSymbols() []Symbol
}

// Connection is implemented by targets that say how they reach their program, in gdb's
// words (info inferiors): "native" for a program run on this machine, "remote HOST:PORT"
// for a GDB stub.
type Connection interface {
	Connection() string
}

// Executable is implemented by targets that run a program file: its path.
type Executable interface {
	ExecutablePath() string
}

// ProcFiles is implemented by targets whose program is a process of this machine: its
// files under /proc (gdb's info proc), "cmdline", "status" and "maps" as read, the links
// "cwd" and "exe" as the paths they name. Other names are refused.
type ProcFiles interface {
	ProcFile(name string) (string, error)
}

// AuxvReader is implemented by targets whose program has an auxiliary vector (a Linux
// process, live or in a core): its entries in order, type and value, up to its AT_NULL.
type AuxvReader interface {
	Auxv() ([][2]uint64, error)
}
