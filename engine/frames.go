package engine

// What a debugger says of a frame beyond its location: its arguments, whether it is
// stopped inside a line, how deep the stack is, and where it lives in memory.

import (
	"fmt"
	"strings"
)

// FrameArgs returns the parameters of a stopped frame with their values, in order, as a
// backtrace shows them beside the function's name, whole (a front end shortens them as it
// shows frames).
func (s *Session) FrameArgs(frame int) ([]Variable, error) {
	scopes, err := s.Scopes(frame)
	if err != nil {
		return nil, err
	}
	for _, sc := range scopes {
		if sc.Name != "Locals" {
			continue
		}
		vars, err := s.Variables(sc.Ref)
		if err != nil {
			return nil, err
		}
		args := make([]Variable, 0, len(vars))
		for _, v := range vars {
			if !v.Arg {
				continue
			}
			args = append(args, v)
		}
		return withEntryValues(s.t, frame, args), nil
	}
	return nil, nil
}

// EntryValuer is implemented by targets that know the values a frame's parameters had on
// entry to its function (optimized code, through the caller's call site): by name.
type EntryValuer interface {
	ArgEntryValues(frame int) map[string]string
}

// withEntryValues shows the parameters' entry values as gdb's frame lines do: a=a@entry=0
// when the value is still the one it came in with, a@entry=0 when it is optimized out.
func withEntryValues(t Target, frame int, args []Variable) []Variable {
	ev, ok := t.(EntryValuer)
	if !ok || len(args) == 0 {
		return args
	}
	entry := ev.ArgEntryValues(frame)
	for i, a := range args {
		e, known := entry[a.Name]
		switch {
		case !known:
		case a.Value == e:
			args[i].Value = a.Name + "@entry=" + e
		case a.Value == "<optimized out>":
			args[i].Name, args[i].Value = a.Name+"@entry", e
		}
	}
	return args
}

// FormatArgs writes frame arguments as gdb does between a frame's parentheses:
// "n=3, name=0x4006f4 \"pt\"".
func FormatArgs(args []Variable) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(a.Name)
		b.WriteByte('=')
		b.WriteString(a.Value)
	}
	return b.String()
}

// MidStatement reports whether l is in the middle of a statement rather than at its first
// instruction (a caller's return address, a stop after finish); false when the target
// cannot tell.
func (s *Session) MidStatement(l Location) bool {
	ss, ok := s.t.(StatementStarts)
	return ok && l.HasPC && !ss.StatementStart(l.PC)
}

// FrameCounter is implemented by targets that count their frames without listing them,
// for a front end that tells at every step whether it entered or left a frame.
type FrameCounter interface {
	NumFrames() (int, error)
}

// Depth returns the number of frames of the stopped program.
func (s *Session) Depth() (int, error) {
	if err := s.checkStopped("get the stack"); err != nil {
		return 0, err
	}
	if fc, ok := s.t.(FrameCounter); ok {
		return fc.NumFrames()
	}
	frames, err := s.t.Stack()
	return len(frames), err
}

// FrameInfo is where a frame lives, as gdb's info frame says it.
type FrameInfo struct {
	CFA      uint64 // the frame's address: the stack pointer before the call that made it
	PC       uint64
	PCName   string // the program counter's register ("rip", "pc")
	SPName   string // the stack pointer's ("rsp", "sp")
	SavedPC  uint64 // where it returns to (0 for the outermost frame)
	Base     uint64 // the frame pointer's value, from which its arguments and locals are addressed (0: none)
	Language string // of its code, as gdb names it ("c"); "" when unknown
	Saved    []SavedRegister
	Unit     SourceUnit // how its code was compiled (gdb's info source)
	// TailCall marks the frame of a function that ended with a jump to its callee's: its own
	// frame is gone (no arguments' or locals' address, no saved registers).
	TailCall bool
	// Inlined marks the frame of an inlined copy, without a frame of its own; InlinedInto
	// is the frame of the code it was inlined into (gdb's "inlined into frame N").
	Inlined     bool
	InlinedInto int
}

// SourceUnit is what a compilation unit tells of itself: its file as the compiler was given
// it, the directory it was compiled in, the compiler and its flags, the debug format.
type SourceUnit struct {
	Name, CompDir, Producer string
	DWARFVersion            int  // 0 when unknown
	Macros                  bool // it carries the preprocessor's macros
}

// SavedRegister is where a frame saved one of its caller's registers.
type SavedRegister struct {
	Name string
	Addr uint64
}

// FrameDescriber is implemented by targets whose frames are machine frames (native
// programs, firmware).
type FrameDescriber interface {
	FrameInfo(frame int) (FrameInfo, error)
}

// FileDescriber is implemented by targets that can describe a source file's unit without
// a frame in it (gdb's info source before the program runs, after list).
type FileDescriber interface {
	FileInfo(file string) (FrameInfo, bool)
}

// FileInfo describes the unit of source file file: its language and compilation (Unit);
// false when the target cannot tell.
func (s *Session) FileInfo(file string) (FrameInfo, bool) {
	fd, ok := s.t.(FileDescriber)
	if !ok {
		return FrameInfo{}, false
	}
	return fd.FileInfo(file)
}

// FrameInfo describes a frame of the stopped program.
func (s *Session) FrameInfo(frame int) (FrameInfo, error) {
	fd, ok := s.t.(FrameDescriber)
	if !ok {
		return FrameInfo{}, fmt.Errorf("frame information: %w", ErrUnsupported)
	}
	if err := s.checkStopped("describe a frame"); err != nil {
		return FrameInfo{}, err
	}
	return fd.FrameInfo(frame)
}
