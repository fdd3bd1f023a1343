package gdbremote

import (
	"os"
	"testing"
	"time"
)

func TestZZExp(t *testing.T) {
	stub, err0 := StartGdbserver(testCtx(t, 20*time.Second), "/tmp/te/th", nil, StubOptions{Output: os.Stderr, Extra: []string{"--debug"}})
	if err0 != nil { t.Fatal(err0) }
	defer stub.Stop()
	c := dial(t, stub.Addr, Options{})
	ctx := testCtx(t, 10*time.Second)
	t.Log(c.Feature("QThreadEvents"))
	r, err := c.Exchange(ctx, "QThreadEvents:1")
	t.Log(r, err)
	for i := 0; i < 12; i++ {
		if err := c.Continue(ctx); err != nil {
			t.Fatal(err)
		}
		sr, err := c.Wait(ctx)
		t.Logf("%q %v", sr.Raw, err)
		if sr.Exited() {
			break
		}
		ids, _ := c.Threads(ctx)
		r, _ := c.Exchange(ctx, "qC")
		t.Log(ids, r)
	}
}
