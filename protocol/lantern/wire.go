package lantern

// The JSON answers of the daemon, as its server writes them and its client reads them.

// Error is an error answer of the daemon.
type Error struct {
	Code    string `json:"error_code"`
	Message string `json:"message"`
	Time    string `json:"time"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Session is the session JSON of the daemon: the original's, plus what this daemon adds
// (exit status, why a run ended, the upload size).
type Session struct {
	ID        string            `json:"id"`
	State     string            `json:"state"`
	PID       *int              `json:"pid"`
	DebugPort *int              `json:"debug_port"`
	Bundle    bool              `json:"bundle,omitempty"`
	ExecPath  string            `json:"exec_path,omitempty"`
	Args      string            `json:"args,omitempty"`
	Env       map[string]string `json:"env,omitempty"`
	Size      int64             `json:"size"`
	ExitCode  *int              `json:"exit_code,omitempty"`
	Signal    string            `json:"signal,omitempty"`
	Ended     string            `json:"ended,omitempty"`
}

// Output is the answer to OUTPUT.
type Output struct {
	ID      string `json:"id"`
	Output  string `json:"output"`
	Offset  int64  `json:"offset"`
	Total   int64  `json:"total"`
	Next    int64  `json:"next"`
	Trimmed bool   `json:"trimmed,omitempty"`
}

// Dep is one entry of DEPS.
type Dep struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Available   bool   `json:"available"`
	Required    bool   `json:"required"`
}

// Deps is the answer to DEPS.
type Deps struct {
	Deps         []Dep `json:"deps"`
	AllSatisfied bool  `json:"all_satisfied"`
}
