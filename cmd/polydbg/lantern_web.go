package main

import (
	"errors"
	"sync"
	"time"

	"github.com/polydbg/polydbg/protocol/lantern"
	"github.com/polydbg/polydbg/protocol/web"
)

// lanternFeeds shows a lantern daemon's programs in the web view: it is a client of the
// daemon (on its own address, with its token), so neither protocol package knows the other.
type lanternFeeds struct {
	addr, token string
	mu          sync.Mutex
	c           *lantern.Client
}

// call runs f with a connected client, reconnecting once after a broken connection.
func (l *lanternFeeds) call(f func(c *lantern.Client) error) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var err error
	for try := 0; try < 2; try++ {
		if l.c == nil {
			if l.c, err = lantern.Dial(l.addr, l.token, 5*time.Second); err != nil {
				l.c = nil
				return err
			}
		}
		if err = f(l.c); err == nil {
			return nil
		}
		if answer := (*lantern.Error)(nil); errors.As(err, &answer) {
			return err // the daemon answered with an error: the connection is fine
		}
		l.c.Close()
		l.c = nil
	}
	return err
}

func (l *lanternFeeds) Feeds() ([]web.FeedInfo, error) {
	var list []lantern.Session
	if err := l.call(func(c *lantern.Client) error { return c.DoInto("LIST", &list) }); err != nil {
		return nil, err
	}
	out := make([]web.FeedInfo, 0, len(list))
	for _, s := range list {
		name := s.ExecPath
		if name == "" {
			name = "program " + s.ID
		}
		out = append(out, web.FeedInfo{ID: s.ID, Name: name, Owner: "lantern", State: s.State})
	}
	return out, nil
}

func (l *lanternFeeds) FeedOutput(id string, from int64) (string, int64, bool, error) {
	var o lantern.Output
	err := l.call(func(c *lantern.Client) (err error) { o, err = c.Output(id, from); return err })
	return o.Output, o.Next, o.Trimmed, err
}

func (l *lanternFeeds) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.c != nil {
		l.c.Close()
		l.c = nil
	}
}
