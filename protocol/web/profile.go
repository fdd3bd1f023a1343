package web

import (
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/polydbg/polydbg/engine/profile"
	"github.com/polydbg/polydbg/launch"
)

// flameNode is the flame graph's tree as the page draws it.
type flameNode struct {
	Name     string       `json:"n"`
	Value    int64        `json:"v"`
	Children []*flameNode `json:"c,omitempty"`
}

// maxFlameNodes bounds the tree sent to a page; the smallest stacks beyond it are merged.
const maxFlameNodes = 20000

// maxTimelineSegs bounds the timeline sent to a page: the profiler keeps the first
// profile.DefaultTimelineCap statements, and runs of statements of one function make one
// segment, so this many segments are seldom reached; beyond them the rest is counted.
const maxTimelineSegs = 5000

// timeline is the profile's timeline as the page draws it: the statements in the order
// they ran, runs of one function merged into segments on that function's lane.
type timeline struct {
	Segments  []timelineSeg `json:"segments"`
	Funcs     []string      `json:"funcs"`     // lanes, in the order the functions first ran
	Ns        int64         `json:"ns"`        // time the segments cover
	Dropped   int64         `json:"dropped"`   // statements after the profiler's cap, not in the timeline
	Truncated int64         `json:"truncated"` // statements after maxTimelineSegs segments
}

type timelineSeg struct {
	Func  int   `json:"f"` // index in Funcs
	Start int64 `json:"s"` // ns since the first statement
	Dur   int64 `json:"d"`
	N     int   `json:"n"` // statements in the run
	Line  int   `json:"l"` // the first statement's line
}

// profile serves the Kite profile as a flame graph tree and a timeline (while stopped or
// after the end).
func (s *Server) profile(w http.ResponseWriter, r *http.Request) {
	h := s.hubOr404(w, r)
	if h == nil {
		return
	}
	rep, err := h.d.ProfileReport()
	switch {
	case errors.Is(err, launch.ErrNoProfile):
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	case err != nil:
		http.Error(w, "the profile can be read while the program is paused or after it ended", http.StatusConflict)
		return
	}
	writeJSON(w, map[string]any{"total": rep.TotalNs, "root": flameTree(rep), "functions": rep.Functions(), "timeline": timelineOf(rep)})
}

func flameTree(rep profile.Report) *flameNode {
	root := &flameNode{Name: "all"}
	nodes := 1
	stacks := slices.Clone(rep.Stacks)
	slices.SortFunc(stacks, func(a, b profile.StackStats) int { return int(b.Ns - a.Ns) })
	for _, st := range stacks {
		funcs, leaf := st.Frames()
		path := append(funcs, fmt.Sprintf("%s line %d", leaf.Kind, leaf.Line))
		n := root
		n.Value += st.Ns
		for _, name := range path {
			var c *flameNode
			for _, x := range n.Children {
				if x.Name == name {
					c = x
					break
				}
			}
			if c == nil {
				if nodes >= maxFlameNodes {
					break
				}
				c = &flameNode{Name: name}
				n.Children = append(n.Children, c)
				nodes++
			}
			c.Value += st.Ns
			n = c
		}
	}
	return root
}

// timelineOf names each statement of the timeline by its function (the innermost frame of
// the folded stacks that end at its site) and merges runs of one function.
func timelineOf(rep profile.Report) timeline {
	fnOf := map[profile.Site]string{}
	for _, st := range rep.Stacks {
		funcs, leaf := st.Frames()
		if len(funcs) > 0 {
			fnOf[leaf] = funcs[len(funcs)-1]
		}
	}
	tl := timeline{Segments: []timelineSeg{}, Funcs: []string{}, Dropped: rep.TimelineDropped}
	lane := map[string]int{}
	for _, e := range rep.Timeline {
		name := fnOf[profile.Site{Line: e.Line, Col: e.Col, Kind: e.Kind}]
		if name == "" {
			name = "?"
		}
		n := len(tl.Segments)
		if i, ok := lane[name]; ok && n > 0 && tl.Segments[n-1].Func == i {
			tl.Segments[n-1].Dur += e.DurNs
			tl.Segments[n-1].N++
			tl.Ns += e.DurNs
			continue
		}
		if n == maxTimelineSegs {
			tl.Truncated++
			continue
		}
		i, ok := lane[name]
		if !ok {
			i = len(tl.Funcs)
			lane[name] = i
			tl.Funcs = append(tl.Funcs, name)
		}
		tl.Segments = append(tl.Segments, timelineSeg{Func: i, Start: tl.Ns, Dur: e.DurNs, N: 1, Line: e.Line})
		tl.Ns += e.DurNs
	}
	return tl
}
