package mcp

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxSourceFile bounds a source file served as a resource.
const maxSourceFile = 1 << 20

// Resources: a session's program output (subscribable: updated as output arrives) and the
// source files of a session (the program, and the files its stops were in; no other file).
func (s *Server) addResources() {
	s.sdk.AddResourceTemplate(&sdk.ResourceTemplate{Name: "output", Title: "Program output of a session",
		URITemplate: "polydbg://sessions/{id}/output", MIMEType: "text/plain",
		Description: "The newest 1 MiB of the program's output; subscribe to be told when more arrives."},
		func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			g, err := s.resourceSession(req, "/output")
			if err != nil {
				return nil, err
			}
			text, _, _ := g.outputPage(0, keepOutput)
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: s.redact.text(text)}}}, nil
		})
	s.sdk.AddResourceTemplate(&sdk.ResourceTemplate{Name: "source", Title: "A source file of a session",
		URITemplate: "polydbg://sessions/{id}/source/{+path}", MIMEType: "text/plain",
		Description: "The program's source, or a file one of its stops was in (path is absolute, without its leading slash)."},
		func(ctx context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			uri := req.Params.URI
			i := strings.Index(uri, "/source/")
			if i < 0 {
				return nil, sdk.ResourceNotFoundError(uri)
			}
			g, err := s.resourceSession(req, uri[i:])
			if err != nil {
				return nil, err
			}
			path := filepath.Clean("/" + uri[i+len("/source/"):])
			if !g.mayServe(path) {
				return nil, fmt.Errorf("%s is not a source file of session %s (only the program and the files it stopped in are served)", path, g.id)
			}
			lines, err := g.d.Source(path)
			if err != nil {
				return nil, sdk.ResourceNotFoundError(uri)
			}
			text := strings.Join(lines, "\n") + "\n"
			if len(text) > maxSourceFile {
				return nil, fmt.Errorf("%s is %d bytes, over the %d served", path, len(text), maxSourceFile)
			}
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: s.redact.text(text)}}}, nil
		})
}

// resourceSession finds the session a resource URI names, among the reader's sessions.
func (s *Server) resourceSession(req *sdk.ReadResourceRequest, tail string) (*debuggee, error) {
	uri := req.Params.URI
	rest, ok := strings.CutPrefix(uri, "polydbg://sessions/")
	if !ok {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	id, _, _ := strings.Cut(rest, "/")
	g, err := s.clientOf(req.Session).get(SessionID(id))
	if err != nil {
		return nil, sdk.ResourceNotFoundError(uri)
	}
	return g, nil
}

// mayServe says whether path is the program or a file the session stopped in.
func (g *debuggee) mayServe(path string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return path == g.d.Spec.Program || g.lastSrc[path]
}

// outputURI is a session's output resource.
func outputURI(id string) string { return "polydbg://sessions/" + id + "/output" }

var notifyDelay = 100 * time.Millisecond

// outputChanged tells subscribers of a session's output resource that it grew, at most
// once per notifyDelay.
func (s *Server) outputChanged(g *debuggee) {
	if !g.notifyPending.CompareAndSwap(false, true) {
		return
	}
	time.AfterFunc(notifyDelay, func() {
		g.notifyPending.Store(false)
		_ = s.sdk.ResourceUpdated(context.Background(), &sdk.ResourceUpdatedNotificationParams{URI: outputURI(g.id)})
	})
}
