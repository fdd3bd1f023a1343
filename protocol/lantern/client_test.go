package lantern

import (
	"bufio"
	"errors"
	"net"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/internal/wire"
)

// An answer line over the client's bound (64 MiB) is refused with a clear error once the
// bound is read, without holding more than the bound: a daemon gone wrong cannot make the
// client buffer without end. An answer just under the bound is read whole.
func TestClientAnswerBound(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	chunk := []byte(strings.Repeat("a", 1<<20))
	answer := func(c net.Conn, n int) { // `"` n bytes `"` then a line end: a JSON string
		w := bufio.NewWriterSize(c, 1<<20)
		w.WriteString(`"`)
		for n > 0 {
			k := min(n, len(chunk))
			if _, err := w.Write(chunk[:k]); err != nil {
				return
			}
			n -= k
		}
		w.WriteString("\"\n")
		w.Flush()
	}
	go func() {
		for _, size := range []int{maxAnswer - 2, maxAnswer + 1} {
			c, err := l.Accept()
			if err != nil {
				return
			}
			r := bufio.NewReader(c)
			if _, err := r.ReadString('\n'); err == nil {
				answer(c, size)
			}
			c.Close()
		}
	}()

	c, err := Dial(l.Addr().String(), "", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := c.Do("STATUS x")
	c.Close()
	if err != nil || len(raw) != maxAnswer {
		t.Fatalf("an answer of the bound: %d bytes, %v", len(raw), err)
	}
	raw = nil
	runtime.GC()

	c, err = Dial(l.Addr().String(), "", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = c.Do("STATUS x")
	if !errors.Is(err, wire.ErrLineTooLong) {
		t.Fatalf("an answer over the bound: %v, want %v", err, wire.ErrLineTooLong)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 3*maxAnswer {
		t.Errorf("reading it allocated %d MiB", grew>>20)
	}
}
