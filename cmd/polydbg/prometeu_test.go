package main

import (
	"bufio"
	"bytes"
	"image/png"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/console"
)

func TestPrometeuRunScreenshot(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out.png")
	var stdout, stderr bytes.Buffer
	code := prometeuMain([]string{"run", "../../examples/cartridges/colorsquare", "--frames", "3", "--fps", "0", "--screenshot", out}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	// Frame 2 drew the square at (12, 22).
	if img.At(12, 22) != console.Palette[8] || img.At(11, 22) != console.Palette[1] || img.At(27, 37) != console.Palette[8] {
		t.Fatalf("square not where it was drawn")
	}
	if !strings.Contains(stderr.String(), "[info] ColorSquare ready") {
		t.Fatalf("stderr %q", stderr.String())
	}
	stderr.Reset()
	if code := prometeuMain([]string{"run", "../../examples/cartridges/overbudget", "--frames", "1", "--fps", "0"}, &stdout, &stderr); code != 0 ||
		!strings.Contains(stderr.String(), "cert: frame 0: syscalls_per_frame used 306, limit 200") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
}

func TestPrometeuBadUse(t *testing.T) {
	var out bytes.Buffer
	for _, args := range [][]string{{"run"}, {"run", "a", "b"}, {"run", "x", "--wait"}, {"fly"}, {"run", "x", "--devtools", "8.8.8.8:1"}} {
		if code := prometeuMain(args, &out, &out); code != 2 {
			t.Errorf("%v: exit %d", args, code)
		}
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "manifest.json"), []byte(`{"magic":"PMTX"}`), 0o644)
	out.Reset()
	if code := prometeuMain([]string{"check", dir}, &out, &out); code != 1 || !strings.Contains(out.String(), `magic must be "PMTU"`) || !strings.Contains(out.String(), "entrypoint is missing") {
		t.Fatalf("check: %d %s", code, out.String())
	}
}

// The DevTools server of `prometeu run --devtools --wait` over TCP, until the cartridge
// ends after its frames.
func TestPrometeuDevtools(t *testing.T) {
	pr, pw := io.Pipe()
	done := make(chan int)
	go func() {
		code := prometeuMain([]string{"run", "../../examples/cartridges/colorsquare", "--frames", "5", "--fps", "0", "--devtools", "127.0.0.1:0", "--wait"}, io.Discard, pw)
		pw.Close()
		done <- code
	}()
	sc := bufio.NewScanner(pr)
	var addr string
	for sc.Scan() {
		if a, ok := strings.CutPrefix(sc.Text(), "prometeu: DevTools listening on "); ok {
			addr = a
			break
		}
	}
	go io.Copy(io.Discard, pr)
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	r := bufio.NewReader(conn)
	line, _ := r.ReadString('\n')
	if !strings.Contains(line, `"app_mode":"Debug"`) {
		t.Fatalf("handshake %q", line)
	}
	conn.Write([]byte(`{"type":"start","id":1}` + "\n"))
	var got []string
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			break
		}
		got = append(got, strings.TrimSpace(line))
	}
	all := strings.Join(got, "\n")
	if !strings.Contains(all, `"request":"start"`) || !strings.HasSuffix(all, `{"type":"exited","code":0,"frame_index":5}`) {
		t.Fatalf("messages:\n%s", all)
	}
	if code := <-done; code != 0 {
		t.Fatalf("exit %d", code)
	}
}
