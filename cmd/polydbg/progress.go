package main

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"
)

// Progress of a long transfer (lantern push): on a terminal, one bar redrawn in place with
// the bytes, the rate and the time left; elsewhere (a pipe, a log file), a plain line at
// every further tenth. Nothing is shown for a transfer that ends within the first second,
// so quick pushes and scripts print what they always did.

const (
	progressQuiet = time.Second            // shown only for transfers longer than this
	progressTick  = 200 * time.Millisecond // redraw interval on a terminal
)

type progress struct {
	mu       sync.Mutex
	w        io.Writer
	terminal bool
	what     string
	total    int64
	done     int64
	begin    time.Time
	ticking  bool // start was called
	shown    bool // something was printed: end with a summary line
	tenth    int64
	stop     chan struct{}
	finished chan struct{}
}

// newProgress reports on w the transfer of total bytes called what; start ticks it.
func newProgress(w io.Writer, terminal bool, what string, total int64, now time.Time) *progress {
	return &progress{w: w, terminal: terminal, what: what, total: total, begin: now,
		stop: make(chan struct{}), finished: make(chan struct{})}
}

// reader counts the bytes read through r.
func (p *progress) reader(r io.Reader) io.Reader { return &countingReader{r: r, p: p} }

type countingReader struct {
	r io.Reader
	p *progress
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.p.mu.Lock()
	c.p.done += int64(n)
	c.p.mu.Unlock()
	return n, err
}

// start redraws the progress every tick until finish is called.
func (p *progress) start() {
	p.ticking = true
	go func() {
		defer close(p.finished)
		t := time.NewTicker(progressTick)
		defer t.Stop()
		for {
			select {
			case now := <-t.C:
				p.update(now)
			case <-p.stop:
				return
			}
		}
	}()
}

// finish stops the redrawing and, if the progress was shown, prints the summary.
func (p *progress) finish(now time.Time) {
	close(p.stop)
	if p.ticking {
		<-p.finished
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.shown {
		return
	}
	el := now.Sub(p.begin)
	line := fmt.Sprintf("%s: %s in %s (%s/s)", p.what, bytesText(p.done), el.Round(100*time.Millisecond), bytesText(rate(p.done, el)))
	if p.terminal {
		fmt.Fprintf(p.w, "\r%-78s\n", line)
	} else {
		fmt.Fprintln(p.w, line)
	}
}

// update shows the progress at time now.
func (p *progress) update(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	el := now.Sub(p.begin)
	if el < progressQuiet || p.total <= 0 {
		return
	}
	pct := min(100, p.done*100/p.total)
	r := rate(p.done, el)
	left := "--:--"
	if r > 0 {
		left = clock(time.Duration(float64(p.total-p.done) / float64(r) * float64(time.Second)))
	}
	stats := fmt.Sprintf("%3d%%  %s / %s  %s/s  %s left", pct, bytesText(p.done), bytesText(p.total), bytesText(r), left)
	if p.terminal {
		const width = 24
		fill := int(pct * width / 100)
		bar := strings.Repeat("=", fill) + strings.Repeat(" ", width-fill)
		if fill > 0 && fill < width {
			bar = bar[:fill-1] + ">" + bar[fill:]
		}
		fmt.Fprintf(p.w, "\r[%s] %s ", bar, stats)
		p.shown = true
		return
	}
	if tenth := pct / 10; tenth > p.tenth || !p.shown {
		p.tenth = tenth
		fmt.Fprintf(p.w, "%s: %s\n", p.what, stats)
		p.shown = true
	}
}

func rate(n int64, el time.Duration) int64 {
	if el <= 0 {
		return 0
	}
	return int64(float64(n) / el.Seconds())
}

func clock(d time.Duration) string {
	s := int64(d.Round(time.Second) / time.Second)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

func bytesText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
