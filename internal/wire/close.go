package wire

import (
	"io"
	"net"
	"time"
)

// closeLinger bounds how long CloseGently waits for the peer, and closeDrain what it reads.
const (
	closeLinger = time.Second
	closeDrain  = 1 << 20
)

// CloseGently ends a connection the server chose to end (a wrong token, a finished
// session) so that the peer reads everything written before: it sends FIN, reads and drops
// what the peer still sends until it closes too (bounded in time and bytes), then closes.
// A plain Close with unread input makes the kernel answer with a reset, and a client may
// lose the last answer to it (ECONNRESET before it read the error).
func CloseGently(c net.Conn) error {
	if cw, ok := c.(interface{ CloseWrite() error }); ok && cw.CloseWrite() == nil {
		_ = c.SetReadDeadline(time.Now().Add(closeLinger))
		_, _ = io.Copy(io.Discard, io.LimitReader(c, closeDrain))
	}
	return c.Close()
}
