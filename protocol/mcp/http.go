package mcp

import (
	"crypto/subtle"
	"net/http"
	"net/url"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/polydbg/polydbg/internal/wire"
)

// HTTPHandler serves the streamable HTTP transport. With a token, every request must carry
// "Authorization: Bearer TOKEN". A request from a browser page (an Origin header) is served
// only when that origin is on this machine, and the SDK refuses a request that came in
// on a loopback address under another host name (DNS rebinding).
func (s *Server) HTTPHandler(token string) http.Handler {
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.sdk }, &sdk.StreamableHTTPOptions{
		// Larger than the tool-argument limit, so that an oversized call gets the MCP error
		// saying so rather than a bare HTTP 413.
		MaxRequestBodyBytes: int64(s.opts.MaxArgBytes) + 16<<20,
		SessionTimeout:      30 * time.Minute,
		Logger:              s.opts.Logger,
	})
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token != "" && subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="polydbg"`)
			http.Error(w, "polydbg mcp: a bearer token is required (Authorization: Bearer ...)", http.StatusUnauthorized)
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !LoopbackOrigin(o) {
			http.Error(w, "polydbg mcp: requests from other origins are refused", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// LoopbackOrigin says whether an Origin header names a page on this machine.
func LoopbackOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Hostname() == "" {
		return false
	}
	return wire.IsLoopbackHost(u.Hostname())
}
