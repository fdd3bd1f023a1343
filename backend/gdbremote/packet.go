package gdbremote

import "github.com/polydbg/polydbg/backend/gdbremote/rsp"

// ErrGarbage is wrapped by errors for input that is not the Remote Serial Protocol.
var ErrGarbage = rsp.ErrGarbage
