package upload

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/polydbg/polydbg/internal/tarball"
)

// payload sends data then "NEXT\n" over a pipe and returns a Payload of len(data) bytes,
// with the first bytes already in its buffer as a command reader leaves them.
func payload(t *testing.T, data []byte) *Payload {
	t.Helper()
	a, b := net.Pipe()
	t.Cleanup(func() { a.Close(); b.Close() })
	go func() {
		b.Write(data)
		b.Write([]byte("NEXT\n"))
	}()
	br := bufio.NewReaderSize(a, 16)
	br.Peek(1) // buffers the start of the payload
	return &Payload{Conn: a, Buf: br, Left: int64(len(data))}
}

// inStep checks that the whole payload was read and nothing after it.
func inStep(t *testing.T, u *Payload) {
	t.Helper()
	line, err := u.Buf.ReadString('\n')
	if err != nil || line != "NEXT\n" {
		t.Errorf("after the payload: %q %v", line, err)
	}
}

func TestBinary(t *testing.T) {
	img := append(append([]byte{}, ELFMagic...), bytes.Repeat([]byte("x"), 100000)...)
	u := payload(t, img)
	f, err := u.Binary("test")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	got, _ := io.ReadAll(io.NewSectionReader(f, 0, int64(len(img))+1))
	if !bytes.Equal(got, img) {
		t.Errorf("memfd holds %d bytes, not the %d sent", len(got), len(img))
	}
	if _, err := f.WriteAt([]byte{0}, 0); err == nil {
		t.Error("the memfd is not sealed")
	}
	inStep(t, u)

	u = payload(t, []byte("#!/bin/sh\necho hi\n"))
	if _, err := u.Binary("test"); !errors.Is(err, ErrNotELF) {
		t.Errorf("not ELF: %v", err)
	}
	inStep(t, u)
}

func TestTruncatedPayload(t *testing.T) {
	a, b := net.Pipe()
	go func() { b.Write(ELFMagic); b.Write([]byte("abc")); b.Close() }()
	u := &Payload{Conn: a, Buf: bufio.NewReader(a), Left: 100}
	if _, err := u.Binary("test"); !errors.Is(err, ErrPayload) {
		t.Errorf("truncated: %v, want ErrPayload", err)
	}
}

func bundle(entries map[string][]byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, body := range entries {
		tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Size: int64(len(body)), Mode: 0o644})
		tw.Write(body)
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

func TestBundle(t *testing.T) {
	elf := append(append([]byte{}, ELFMagic...), "rest"...)
	data := bundle(map[string][]byte{"bin/app": elf, "lib/x.so": []byte("lib")})
	u := payload(t, data)
	dir, n, err := u.Bundle(t.TempDir(), "bin/app", tarball.Limits{}, nil)
	if err != nil || n != int64(len(elf)+3) {
		t.Fatalf("bundle: %d %v", n, err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "bin/app")); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("executable: %v %v", fi, err)
	}
	inStep(t, u)

	for name, tc := range map[string]struct {
		exec string
		room func(int64) bool
		want error
	}{
		"not ELF":    {"lib/x.so", nil, ErrNotELF},
		"missing":    {"bin/nope", nil, ErrExecPath},
		"a dir":      {"bin", nil, ErrExecPath},
		"over room":  {"bin/app", func(int64) bool { return false }, ErrExtract},
		"room given": {"bin/app", func(n int64) bool { return n == int64(len(elf)+3) }, nil},
	} {
		u := payload(t, data)
		_, _, err := u.Bundle(t.TempDir(), tc.exec, tarball.Limits{}, tc.room)
		if !errors.Is(err, tc.want) && !(tc.want == nil && err == nil) {
			t.Errorf("%s: %v, want %v", name, err, tc.want)
		}
		inStep(t, u)
	}
}
