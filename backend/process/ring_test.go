package process

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestRing(t *testing.T) {
	r := NewRing(8)
	check := func(off int64, want string, wantFrom, wantTotal int64, wantTrim bool) {
		t.Helper()
		d, from, total, trim := r.ReadFrom(off)
		if string(d) != want || from != wantFrom || total != wantTotal || trim != wantTrim {
			t.Errorf("ReadFrom(%d) = %q %d %d %v; want %q %d %d %v", off, d, from, total, trim, want, wantFrom, wantTotal, wantTrim)
		}
	}
	check(0, "", 0, 0, false)
	r.Write([]byte("hello"))
	check(0, "hello", 0, 5, false)
	check(3, "lo", 3, 5, false)
	check(9, "", 5, 5, false)
	check(-4, "hello", 0, 5, false)
	r.Write([]byte(" world")) // 11 bytes in all, keeps "lo world"
	check(0, "lo world", 3, 11, true)
	check(3, "lo world", 3, 11, false)
	check(6, "world", 6, 11, false)
	r.Write([]byte("0123456789abcdef")) // larger than the ring
	check(0, "89abcdef", 19, 27, true)
	if r.Total() != 27 || r.Start() != 19 {
		t.Errorf("total %d start %d", r.Total(), r.Start())
	}
}

func TestRingMatchesReference(t *testing.T) {
	r := NewRing(100)
	var all bytes.Buffer
	for i := 0; i < 500; i++ {
		chunk := strings.Repeat(string(rune('a'+i%26)), i%37)
		r.Write([]byte(chunk))
		all.WriteString(chunk)
		for _, off := range []int64{0, int64(all.Len()) - 50, int64(all.Len()) - 100, int64(all.Len())} {
			d, from, total, _ := r.ReadFrom(off)
			if total != int64(all.Len()) || string(d) != all.String()[from:] {
				t.Fatalf("step %d off %d: mismatch", i, off)
			}
		}
	}
}

func TestRingChanged(t *testing.T) {
	r := NewRing(16)
	ch := r.Changed()
	select {
	case <-ch:
		t.Fatal("closed before a write")
	default:
	}
	go r.Write([]byte("x"))
	select {
	case <-ch:
	case <-time.After(5 * time.Second):
		t.Fatal("Changed not closed by Write")
	}
}
