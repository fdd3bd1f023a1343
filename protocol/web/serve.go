package web

import (
	"context"
	"errors"
	"net"
	"net/http"
	"time"

	"github.com/polydbg/polydbg/internal/wire"
)

// Running is a web view being served.
type Running struct {
	*Server
	Addr string // the address it listens on (the port chosen when 0 was asked)
	http *http.Server
	done chan struct{}
}

// Listen serves the web view on addr ("127.0.0.1:0" picks a free port) until Close. Long
// running commands call it for their --web flag; it watches the registry in opts.
func Listen(addr string, opts Options) (*Running, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	if host, _, err := net.SplitHostPort(ln.Addr().String()); err == nil && !wire.IsLoopbackHost(host) {
		opts.Public = true
	}
	s := New(opts)
	r := &Running{Server: s, Addr: ln.Addr().String(), done: make(chan struct{}),
		http: &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, MaxHeaderBytes: 64 << 10}}
	go func() {
		defer close(r.done)
		if err := r.http.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			_ = err // the listener failed: nothing more to serve
		}
	}()
	return r, nil
}

// URL is the address a person opens: on loopback the page gets the controls by itself;
// elsewhere the server's token in the address gives them (a mirror has none to give).
func (r *Running) URL() string {
	host, port, _ := net.SplitHostPort(r.Addr)
	if wire.IsLoopbackHost(host) || r.mirror {
		return "http://" + r.Addr + "/"
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsUnspecified() {
		host = "HOST"
	}
	return "http://" + net.JoinHostPort(host, port) + "/?token=" + r.Token()
}

// Close stops serving: the pages' streams end, the hubs stop.
func (r *Running) Close() error {
	r.Server.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	err := r.http.Shutdown(ctx)
	<-r.done
	return err
}
