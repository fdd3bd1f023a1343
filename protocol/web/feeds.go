package web

import (
	"encoding/json"
	"net/http"
	"time"
)

// FeedInfo is a live output that is not an engine session: a program the lantern daemon
// runs, with its output ring.
type FeedInfo struct {
	ID    string `json:"id"`
	Name  string `json:"name"`
	Owner string `json:"owner"`
	State string `json:"state"`
}

// FeedSource lists such outputs and reads them from an offset; the web view polls it
// (cmd/polydbg adapts the lantern daemon to it, so this package imports no other protocol).
// Its methods may be called from several goroutines.
type FeedSource interface {
	Feeds() ([]FeedInfo, error)
	// FeedOutput returns the output from offset from (later when the ring dropped that
	// part: trimmed), and the offset that follows it.
	FeedOutput(id string, from int64) (text string, next int64, trimmed bool, err error)
}

// feedPoll is how often a feed page's stream asks the source for news.
const feedPoll = 200 * time.Millisecond

func (s *Server) feedList() []FeedInfo {
	if s.feeds == nil {
		return []FeedInfo{}
	}
	list, err := s.feeds.Feeds()
	if err != nil || list == nil {
		return []FeedInfo{}
	}
	return list
}

func (s *Server) feedsHandler(w http.ResponseWriter, r *http.Request) { writeJSON(w, s.feedList()) }

// feedEvents streams one feed to a page: its state when it changes and its output (the
// last pageChunk bytes at first or when the page is behind, with the count skipped).
func (s *Server) feedEvents(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	find := func() *FeedInfo {
		for _, f := range s.feedList() {
			if f.ID == id {
				return &f
			}
		}
		return nil
	}
	if s.feeds == nil || find() == nil {
		http.Error(w, "no such feed", http.StatusNotFound)
		return
	}
	send := sseStream(w)
	var cursor int64 = -1
	lastState := ""
	tick := time.NewTicker(feedPoll)
	defer tick.Stop()
	for {
		f := find()
		if f == nil {
			send("state", []byte(`{"state":"deleted"}`))
			return
		}
		if f.State != lastState {
			lastState = f.State
			b, _ := json.Marshal(map[string]string{"state": f.State})
			if send("state", b) != nil {
				return
			}
		}
		from := max(cursor, 0)
		text, next, trimmed, err := s.feeds.FeedOutput(id, from)
		if err == nil && (text != "" || trimmed) {
			var skipped int64
			if trimmed {
				skipped = next - int64(len(text)) - from
			}
			if len(text) > pageChunk {
				skipped += int64(len(text) - pageChunk)
				text = text[len(text)-pageChunk:]
			}
			b, _ := json.Marshal(map[string]any{"text": text, "dropped": max(skipped, 0)})
			if send("output", b) != nil {
				return
			}
		}
		if err == nil {
			cursor = next
		}
		select {
		case <-r.Context().Done():
			return
		case <-s.stop:
			return
		case <-tick.C:
		}
	}
}
