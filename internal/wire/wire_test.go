package wire

import (
	"bytes"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

func readAll(lr *LineReader) (lines []string, long int) {
	for {
		l, err := lr.Next()
		switch {
		case err == nil:
			lines = append(lines, string(l))
		case errors.Is(err, ErrLineTooLong):
			long++
			if lr.NoResync {
				return
			}
		default:
			return
		}
	}
}

func TestLineReader(t *testing.T) {
	long := strings.Repeat("x", 100)
	tests := []struct {
		name, in string
		drop     bool
		want     []string
		wantLong int
	}{
		{"plain", "a\nbb\n", false, []string{"a", "bb"}, 0},
		{"crlf", "a\r\nb\r\n", false, []string{"a", "b"}, 0},
		{"unterminated kept", "a\nb", false, []string{"a", "b"}, 0},
		{"unterminated dropped", "a\nb", true, []string{"a"}, 0},
		{"too long skipped", "a\n" + long + "\nb\n", false, []string{"a", "b"}, 1},
		{"too long at the end", "a\n" + long, false, []string{"a"}, 1},
		{"exactly the limit", strings.Repeat("y", 10) + "\r\n", false, []string{strings.Repeat("y", 10)}, 0},
		{"empty lines", "\n\n", false, []string{"", ""}, 0},
	}
	for _, tt := range tests {
		lr := NewLineReader(strings.NewReader(tt.in), 10)
		lr.DropUnterminated = tt.drop
		got, n := readAll(lr)
		if strings.Join(got, "|") != strings.Join(tt.want, "|") || n != tt.wantLong {
			t.Errorf("%s: got %q (%d too long), want %q (%d)", tt.name, got, n, tt.want, tt.wantLong)
		}
	}
}

func TestLineReaderNoResyncStopsAtTheLimit(t *testing.T) {
	in := strings.NewReader("a\n" + strings.Repeat("z", 1<<20) + "\nb\n")
	lr := NewLineReader(in, 10)
	lr.NoResync = true
	got, n := readAll(lr)
	if len(got) != 1 || n != 1 {
		t.Fatalf("got %q, %d", got, n)
	}
	if in.Len() < 1<<19 { // it did not read on through the long line
		t.Fatalf("read %d bytes past the limit", (1<<20)-in.Len())
	}
}

// A huge line costs no more memory than the limit.
func TestLineReaderHugeLine(t *testing.T) {
	r := io.MultiReader(strings.NewReader("a\n"), io.LimitReader(zeros{}, 64<<20), strings.NewReader("\nb\n"))
	got, n := readAll(NewLineReader(r, 1<<10))
	if strings.Join(got, "|") != "a|b" || n != 1 {
		t.Fatalf("got %q, %d", got, n)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'q'
	}
	return len(p), nil
}

func FuzzLineReader(f *testing.F) {
	for _, s := range []string{"a\nb", "\r\n\r\n", strings.Repeat("x", 40) + "\n", "a\rb\n"} {
		f.Add([]byte(s), 8)
	}
	f.Fuzz(func(t *testing.T, in []byte, max int) {
		if max < 1 || max > 1<<12 {
			return
		}
		got, _ := readAll(NewLineReader(bytes.NewReader(in), max))
		for _, l := range got {
			if len(l) > max || strings.Contains(l, "\n") {
				t.Fatalf("line %q over %d or with a newline", l, max)
			}
		}
	})
}

func TestQueueBoundsAndCountsDrops(t *testing.T) {
	var f Fanout[int]
	a, b := f.Subscribe(3, 2), f.Subscribe(100, 2)
	if f.Subscribe(1, 2) != nil {
		t.Fatal("a third subscriber over the limit")
	}
	for i := range 5 {
		f.Publish(i)
	}
	items, dropped, _ := a.Take()
	if len(items) != 3 || dropped != 2 {
		t.Fatalf("bounded: %v dropped %d", items, dropped)
	}
	if items, dropped, _ := b.Take(); len(items) != 5 || dropped != 0 {
		t.Fatalf("unbounded enough: %v dropped %d", items, dropped)
	}
	f.Unsubscribe(a)
	f.Publish(9)
	if items, _, closed := a.Take(); len(items) != 0 || !closed {
		t.Fatalf("after unsubscribe: %v closed=%v", items, closed)
	}
	if f.Len() != 1 {
		t.Fatalf("%d subscribers", f.Len())
	}
}

func TestSyncWriterKeepsLinesWhole(t *testing.T) {
	var buf bytes.Buffer
	w := NewSyncWriter(&buf)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			line := []byte(strings.Repeat(string(rune('a'+g)), 50) + "\n")
			for range 100 {
				_, _ = w.Write(line)
			}
		}()
	}
	wg.Wait()
	for _, l := range strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n") {
		if len(l) != 50 || strings.Count(l, l[:1]) != 50 {
			t.Fatalf("mixed line %q", l)
		}
	}
}

func TestIncompleteUTF8HeldBack(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
	}{{"abc", 0}, {"é", 0}, {"a\xc3", 1}, {"\xe2\x82", 2}, {"\xf0\x9f\x98", 3}, {"€", 0}, {"\xff", 0}, {"", 0}} {
		if got := incompleteSuffix([]byte(tc.in)); got != tc.want {
			t.Errorf("%q: %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestWholeRunes(t *testing.T) {
	if got := string(WholeRunes([]byte("a€\xe2\x82"))); got != "a€" {
		t.Errorf("WholeRunes = %q", got)
	}
}

// A connection ended with unread input from the peer still delivers what was written
// before: the peer reads the answer and an orderly end, not a reset.
func TestCloseGentlyDeliversTheLastAnswer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		buf := make([]byte, 4)
		_, _ = io.ReadFull(c, buf)     // one request; more are unread
		_, _ = c.Write([]byte("no\n")) // the answer, then the end
		_ = CloseGently(c)
	}()
	c, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.Write([]byte("req1req2req3")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // the server has closed by now, with input unread
	got, err := io.ReadAll(c)
	if err != nil || string(got) != "no\n" {
		t.Fatalf("read %q, %v; want the answer and EOF", got, err)
	}
}

// BenchmarkLineReader: command lines of a step, read one at a time, as a stdio front end
// reads them (a line that fits the buffer is returned in place, without a copy).
//
//	go test ./internal/wire -run '^$' -bench LineReader -benchmem
func BenchmarkLineReader(b *testing.B) {
	line := []byte(`{"type":"command","command":"stepInto","params":{}}` + "\n")
	in := bytes.Repeat(line, 4096)
	r := bytes.NewReader(in)
	lr := NewLineReader(r, 1<<20)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := lr.Next(); err != nil {
			r.Reset(in)
			lr = NewLineReader(r, 1<<20)
		}
	}
}
