package lantern

import (
	"bytes"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/polydbg/polydbg/internal/upload"
)

// bigELF is a payload of n bytes that starts with the ELF magic and is different at every
// offset modulo 251, so a lost, repeated or misplaced chunk shows.
func bigELF(n int) []byte {
	b := make([]byte, n)
	copy(b, upload.ELFMagic)
	for i := len(upload.ELFMagic); i < n; i++ {
		b[i] = byte(i % 251)
	}
	return b
}

// TestUploadSpliceIntact: an upload of several chunks (upload.Chunk each, spliced from the
// socket into the memfd) arrives byte for byte, sealed.
func TestUploadSpliceIntact(t *testing.T) {
	addr, srv := testServer(t, Config{MaxBytes: 64 << 20})
	img := bigELF(2*upload.Chunk + 12345)
	id := dial(t, addr).upload(img, "")
	ss, _ := srv.progs.Get(id)
	got, err := io.ReadAll(io.NewSectionReader(ss.Exe, 0, int64(len(img))+1))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, img) {
		t.Fatalf("the memfd holds %d bytes that differ from the %d uploaded", len(got), len(img))
	}
	if _, err := ss.Exe.WriteAt([]byte{0}, 0); err == nil {
		t.Error("the memfd is not sealed against writes")
	}
}

// TestUploadTruncated: a client that closes in the middle of the payload leaves no session
// behind and the daemon keeps serving.
func TestUploadTruncated(t *testing.T) {
	addr, srv := testServer(t, Config{MaxBytes: 64 << 20})
	img := bigELF(upload.Chunk + 999)
	c := dial(t, addr)
	fmt.Fprintf(c.conn, "UPLOAD %d\n", len(img))
	c.conn.Write(img[:upload.Chunk+10])
	c.conn.Close()
	dial(t, addr).upload(img[:4096], "")
	// The truncated upload ends (its read fails) and gives back what it held.
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, pending, held := srv.progs.Usage()
		if n == 1 && pending == 0 && held == 4096 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a truncated upload and a good one: %d sessions, %d pending, %d bytes held; want 1, 0, 4096", n, pending, held)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
