package supervise

import (
	"errors"
	"testing"
)

// The table keeps both budgets: programs (uploads in progress count) and bytes; an abandoned
// or deleted program gives back what it held; a closed table refuses new uploads.
func TestTableBudgets(t *testing.T) {
	sup, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	tb := NewTable(sup, 2, 100, nil)
	a, err := tb.Reserve(60)
	if err != nil {
		t.Fatal(err)
	}
	var lim *LimitError
	if _, err := tb.Reserve(50); !errors.As(err, &lim) || !lim.Bytes || lim.InUse != 60 {
		t.Fatalf("over the byte budget: %v", err)
	}
	b, err := tb.Reserve(0) // a bundle: it grows as it unpacks
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tb.Reserve(0); !errors.As(err, &lim) || lim.Bytes || lim.Max != 2 {
		t.Fatalf("a third program: %v", err)
	}
	if tb.Room() != 40 || tb.Grow(b, 41) || !tb.Grow(b, 40) || tb.Room() != 0 {
		t.Fatalf("grow: room %d", tb.Room())
	}
	tb.Admit(a)
	tb.Abandon(b)
	if n, pending, bytes := tb.Usage(); n != 1 || pending != 0 || bytes != 60 {
		t.Fatalf("after admit and abandon: %d programs, %d pending, %d bytes", n, pending, bytes)
	}
	if p, ok := tb.Get(a.ID); !ok || p != a || len(a.ID) != 8 || len(tb.List()) != 1 {
		t.Fatalf("get %s: %v %v", a.ID, p, ok)
	}
	if err := tb.Delete(a); err != nil {
		t.Fatal(err)
	}
	if n, _, bytes := tb.Usage(); n != 0 || bytes != 0 {
		t.Fatalf("after delete: %d programs, %d bytes", n, bytes)
	}
	tb.Close()
	if _, err := tb.Reserve(1); !errors.Is(err, ErrClosed) {
		t.Fatalf("reserve after close: %v", err)
	}
}
