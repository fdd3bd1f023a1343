package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/polydbg/polydbg/gdbcmd"
)

// GDBIn is the input of gdb.
type GDBIn struct {
	Session  SessionID `json:"session"`
	Commands string    `json:"commands" jsonschema:"gdb commands, one a line: info registers, x/8xw &buf, p/x flags, ptype struct point, bt, info frame, info line, disassemble, break f if n > 2, display v..."`
	Frame    int       `json:"frame,omitempty" jsonschema:"the frame selected for the commands (0 is the innermost)"`
}

// GDBOut is what gdb would have printed.
type GDBOut struct {
	Output string `json:"output"`
}

// maxGDBLines bounds the commands of one gdb call.
const maxGDBLines = 64

func (s *Server) addGDBTool() {
	addTool(s, "gdb", "Run gdb commands on the session, as typed at gdb's prompt, and answer with what gdb would "+
		"print: for what no other tool asks (info frame, info line, x/FMT, ptype, printf, display, handle, rbreak, "+
		"thread apply...). The program is run by the other tools: run, continue, step, next, finish, kill and "+
		"source are refused here; set var, set $REG and call change a native or firmware program only with --allow-write.",
		hints{},
		func(ctx context.Context, _ *sdk.CallToolRequest, c *client, in GDBIn) (GDBOut, error) {
			return withSession(c, in.Session, func(g *debuggee) (GDBOut, error) {
				g.gdb.ReadOnly = harmful(g.d.Spec.Kind) && !s.opts.AllowWrite
				var out strings.Builder
				for i, line := range strings.Split(strings.TrimSpace(in.Commands), "\n") {
					if i == maxGDBLines {
						fmt.Fprintf(&out, "(only the first %d commands of a call are run)\n", maxGDBLines)
						break
					}
					if line = strings.TrimSpace(line); line != "" { // an empty line would repeat the last
						out.WriteString(g.gdb.Run(g.d.Session, in.Frame, line))
					}
					if out.Len() > gdbcmd.MaxAnswer {
						return GDBOut{Output: out.String()[:gdbcmd.MaxAnswer] + "\n(output clipped)\n"}, nil
					}
				}
				return GDBOut{Output: out.String()}, nil
			})
		})
}
