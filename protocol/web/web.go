// Package web is polydbg's live web view: one page per registered session (launch.Sessions)
// with its source, stack, variables, breakpoints and run controls, its output, a console's
// screen and telemetry, and a Kite profile's flame graph. It is one more subscriber of the
// sessions and only translates HTTP and server-sent events to engine calls. Its assets are
// embedded: the page works offline.
//
// Security: a server on loopback answers only to loopback host names (no DNS rebinding);
// anyone who can reach a public one may watch; controls (run, pause, step,
// breakpoints, buttons) need the session's token, which the server gives only to a page
// opened from loopback (both the peer and the Host header) or with the server's token in
// its address. Debuggee text is only ever set as text in the page, never as HTML, and the
// Content-Security-Policy allows no inline script.
package web

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"io/fs"
	"net"
	"net/http"
	"sync"

	"github.com/polydbg/polydbg/internal/wire"
	"github.com/polydbg/polydbg/launch"
)

//go:embed assets
var assets embed.FS

// Options configure a Server. The zero value serves launch.Sessions with a random token.
type Options struct {
	Registry *launch.Registry // nil: launch.Sessions
	Token    string           // the server's token; empty: a random one
	Feeds    FeedSource       // outputs that are not sessions (a lantern daemon's programs); nil: none
	// Public serves pages under any host name (read-only without a token), for a server
	// reached beyond loopback; Listen sets it for a non-loopback address. Otherwise only
	// loopback host names are answered, so that a web site that points its name at
	// 127.0.0.1 (DNS rebinding) cannot read the sessions from a visitor's browser.
	Public bool
	// ReadOnly makes every page a mirror: no page gets a token, whoever opens it, and the
	// control endpoints refuse every request. For watching sessions that another client
	// drives (an agent over MCP), which a click in a browser must not disturb.
	ReadOnly bool
}

// Server serves the web view of a registry's sessions.
type Server struct {
	reg    *launch.Registry
	feeds  FeedSource
	public bool
	mirror bool
	token  string
	mux    *http.ServeMux
	mu     sync.Mutex
	hubs   map[string]*hub
	closed bool
	stop   chan struct{}
}

// New makes a server; Close stops its hubs.
func New(opts Options) *Server {
	s := &Server{reg: opts.Registry, feeds: opts.Feeds, public: opts.Public, mirror: opts.ReadOnly, token: opts.Token, hubs: map[string]*hub{}, stop: make(chan struct{})}
	if s.reg == nil {
		s.reg = launch.Sessions
	}
	if s.token == "" {
		b := make([]byte, 16)
		rand.Read(b)
		s.token = hex.EncodeToString(b)
	}
	s.routes()
	go s.prune(s.reg.Changed()) // (subscribed before the goroutine runs: a change made at once is not missed)
	return s
}

// Token is the server's token: an address with ?token= gives a page the controls from
// anywhere.
func (s *Server) Token() string { return s.token }

// SessionToken is the token that controls one session (derived from the server's token).
func (s *Server) SessionToken(id string) string {
	m := hmac.New(sha256.New, []byte(s.token))
	m.Write([]byte("session " + id))
	return hex.EncodeToString(m.Sum(nil))[:32]
}

// Close stops watching the sessions; pages still open get their streams ended.
func (s *Server) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.closed = true
	close(s.stop)
	for id, h := range s.hubs {
		h.close()
		delete(s.hubs, id)
	}
}

// hubFor returns the hub of a registered session, made on first use and made anew when the
// entry's debuggee was replaced (a restart).
func (s *Server) hubFor(id string) *hub {
	e := s.reg.Get(id)
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.hubs[id]
	if e == nil || s.closed {
		return nil
	}
	if h != nil && h.d == e.Debuggee {
		return h
	}
	if h != nil {
		go h.retire()
	}
	h = newHub(e)
	s.hubs[id] = h
	return h
}

// prune drops the hubs of sessions that left the registry or were replaced, at each change
// ch tells.
func (s *Server) prune(ch <-chan struct{}) {
	for {
		select {
		case <-s.stop:
			return
		case <-ch:
		}
		s.mu.Lock()
		for id, h := range s.hubs {
			if e := s.reg.Get(id); e == nil || e.Debuggee != h.d {
				go h.retire()
				delete(s.hubs, id)
			}
		}
		s.mu.Unlock()
	}
}

// ServeHTTP implements http.Handler, with the headers every answer carries.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	if !s.public && !wire.IsLoopbackHost(hostOnly(r.Host)) {
		http.Error(w, "this server answers only to loopback host names (start it on a non-loopback address to serve others)", http.StatusForbidden)
		return
	}
	s.mux.ServeHTTP(w, r)
}

func (s *Server) routes() {
	s.mux = http.NewServeMux()
	static, _ := fs.Sub(assets, "assets")
	files := http.FileServerFS(static)
	s.mux.Handle("GET /static/", http.StripPrefix("/static/", files))
	page := func(w http.ResponseWriter, r *http.Request) {
		http.ServeFileFS(w, r, static, "index.html")
	}
	s.mux.HandleFunc("GET /{$}", page)
	s.mux.HandleFunc("GET /s/{id}", page)
	s.mux.HandleFunc("GET /f/{id}", page)
	s.mux.HandleFunc("GET /api/feeds", s.feedsHandler)
	s.mux.HandleFunc("GET /api/f/{id}/events", s.feedEvents)
	s.mux.HandleFunc("GET /api/sessions", s.sessions)
	s.mux.HandleFunc("GET /api/sessions/events", s.sessionEvents)
	s.mux.HandleFunc("GET /api/s/{id}/info", s.info)
	s.mux.HandleFunc("GET /api/s/{id}/events", s.events)
	s.mux.HandleFunc("GET /api/s/{id}/source", s.source)
	s.mux.HandleFunc("GET /api/s/{id}/vars", s.vars)
	s.mux.HandleFunc("GET /api/s/{id}/profile", s.profile)
	s.mux.HandleFunc("POST /api/s/{id}/control", s.control)
	s.mux.HandleFunc("POST /api/s/{id}/breakpoints", s.breakpoints)
	s.mux.HandleFunc("POST /api/s/{id}/input", s.input)
	s.mux.HandleFunc("POST /api/s/{id}/sample", s.sample)
	s.mux.HandleFunc("POST /api/s/{id}/gdb", s.gdb)
}

// trusted reports whether a request may receive session tokens: it comes from loopback and
// names a loopback host (so that a page of another site that resolves its name to 127.0.0.1
// gets nothing), or it carries the server's token.
func (s *Server) trusted(r *http.Request) bool {
	if t := r.URL.Query().Get("token"); t != "" && subtle.ConstantTimeCompare([]byte(t), []byte(s.token)) == 1 {
		return true
	}
	peer, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil || !wire.IsLoopbackHost(peer) {
		return false
	}
	return wire.IsLoopbackHost(hostOnly(r.Host))
}

// hostOnly drops the port of a Host header.
func hostOnly(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		return h
	}
	return host
}

// authorized checks a control request's session token (header X-Polydbg-Token). A custom
// header cannot be sent cross-origin without a preflight this server never answers, so it
// also keeps other sites' pages from driving the debugger.
func (s *Server) authorized(w http.ResponseWriter, r *http.Request) bool {
	if s.mirror {
		http.Error(w, "read-only mirror: this server was started without controls", http.StatusForbidden)
		return false
	}
	got := r.Header.Get("X-Polydbg-Token")
	if got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(s.SessionToken(r.PathValue("id")))) != 1 {
		http.Error(w, "read-only: this action needs the session's token", http.StatusForbidden)
		return false
	}
	return true
}
