package main

import (
	"io"
	"strings"
	"testing"
	"time"
)

// feed reads n bytes through the progress reader.
func feed(t *testing.T, p *progress, n int64) {
	t.Helper()
	if _, err := io.Copy(io.Discard, p.reader(io.LimitReader(zeros{}, n))); err != nil {
		t.Fatal(err)
	}
}

type zeros struct{}

func (zeros) Read(b []byte) (int, error) { clear(b); return len(b), nil }

func TestProgressOnATerminal(t *testing.T) {
	var out strings.Builder
	t0 := time.Unix(1000, 0)
	p := newProgress(&out, true, "push prog", 100<<20, t0)
	feed(t, p, 10<<20)
	p.update(t0.Add(500 * time.Millisecond)) // within the first second: nothing
	if out.Len() != 0 {
		t.Fatalf("progress shown at once: %q", out.String())
	}
	p.update(t0.Add(2 * time.Second))
	feed(t, p, 40<<20)
	p.update(t0.Add(4 * time.Second))
	p.finish(t0.Add(5 * time.Second))
	want := "\r[=>                      ]  10%  10.0 MiB / 100.0 MiB  5.0 MiB/s  0:18 left " +
		"\r[===========>            ]  50%  50.0 MiB / 100.0 MiB  12.5 MiB/s  0:04 left " +
		"\rpush prog: 50.0 MiB in 5s (10.0 MiB/s)"
	if got := out.String(); !strings.HasPrefix(got, want) || !strings.HasSuffix(got, "\n") {
		t.Errorf("terminal progress:\n got %q\nwant %q...", got, want)
	}
}

func TestProgressPiped(t *testing.T) {
	var out strings.Builder
	t0 := time.Unix(1000, 0)
	p := newProgress(&out, false, "push prog", 1000, t0)
	for i, n := range []int64{50, 30, 20, 400, 500} {
		feed(t, p, n)
		p.update(t0.Add(time.Duration(i+1) * time.Second))
	}
	p.finish(t0.Add(6 * time.Second))
	want := "push prog:   5%  50 B / 1000 B  50 B/s  0:19 left\n" +
		"push prog:  10%  100 B / 1000 B  33 B/s  0:27 left\n" + // 80 B: no new tenth; 100 B: one
		"push prog:  50%  500 B / 1000 B  125 B/s  0:04 left\n" +
		"push prog: 100%  1000 B / 1000 B  200 B/s  0:00 left\n" +
		"push prog: 1000 B in 6s (166 B/s)\n"
	if got := out.String(); got != want {
		t.Errorf("piped progress:\n got %q\nwant %q", got, want)
	}
	if strings.ContainsAny(out.String(), "\r\x1b") {
		t.Error("control characters in piped progress")
	}
}

// A transfer that ends within a second shows nothing.
func TestProgressQuickTransferIsQuiet(t *testing.T) {
	var out strings.Builder
	p := newProgress(&out, true, "push prog", 10, time.Now())
	p.start()
	feed(t, p, 10)
	p.finish(time.Now())
	if out.Len() != 0 {
		t.Errorf("quick transfer printed %q", out.String())
	}
}
