package lantern

import (
	"archive/tar"
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/polydbg/polydbg/internal/wire"
)

// rawConn is a bare connection for attacks the Client would not send.
type rawConn struct {
	t  *testing.T
	c  net.Conn
	br *bufio.Reader
}

func rawDial(t *testing.T, addr string) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(30 * time.Second))
	return &rawConn{t, c, bufio.NewReader(c)}
}

func (r *rawConn) send(s string) {
	r.t.Helper()
	if _, err := io.WriteString(r.c, s); err != nil {
		r.t.Fatal(err)
	}
}

// expect reads one answer line and checks that it contains want.
func (r *rawConn) expect(want string) string {
	r.t.Helper()
	line, err := r.br.ReadString('\n')
	if err != nil {
		r.t.Fatalf("reading answer (want %s): %v", want, err)
	}
	if !strings.Contains(line, want) {
		r.t.Fatalf("answer %q does not contain %q", line, want)
	}
	return line
}

// expectClosed checks that the daemon closed the connection.
func (r *rawConn) expectClosed() {
	r.t.Helper()
	r.c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if b, err := r.br.ReadByte(); err == nil {
		r.t.Fatalf("connection still open (read %q)", b)
	} else if ne, ok := err.(net.Error); ok && ne.Timeout() {
		r.t.Fatal("connection still open")
	}
}

func TestAuthToken(t *testing.T) {
	addr, _ := testServer(t, Config{Token: "s3cret-token"})
	r := rawDial(t, addr)
	r.send("LIST\n")
	r.expect(`"error_code":"unauthorized"`)
	r.send("STATUS 12345678\n") // still answered with unauthorized, still open
	r.expect(`"error_code":"unauthorized"`)
	r.send("AUTH wrong\n")
	r.expect(`"error_code":"unauthorized"`)
	r.expectClosed()

	r = rawDial(t, addr)
	r.send("UPLOAD 4\n\x7fELF")
	r.expect(`"error_code":"unauthorized"`)
	r.expectClosed()

	r = rawDial(t, addr)
	r.send("AUTH s3cret-token\nLIST\n")
	r.expect(`{"ok":true}`)
	r.expect(`[]`)

	if _, err := Dial(addr, "wrong", time.Second); err == nil {
		t.Error("Dial with a wrong token succeeded")
	}
	c, err := Dial(addr, "s3cret-token", time.Second)
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}

func TestListenSecurity(t *testing.T) {
	for _, tc := range []struct {
		addr            string
		token, insecure bool
		ok              bool
	}{
		{"127.0.0.1:4444", false, false, true},
		{"[::1]:4444", false, false, true},
		{"localhost:4444", false, false, true},
		{"0.0.0.0:4444", false, false, false},
		{":4444", false, false, false},
		{"192.168.1.5:4444", false, false, false},
		{"0.0.0.0:4444", true, false, true},
		{"0.0.0.0:4444", false, true, true},
	} {
		err := CheckListen(tc.addr, tc.token, tc.insecure)
		if (err == nil) != tc.ok {
			t.Errorf("CheckListen(%q, token=%v, insecure=%v) = %v", tc.addr, tc.token, tc.insecure, err)
		}
	}
}

func TestLineTooLong(t *testing.T) {
	addr, _ := testServer(t, Config{MaxLine: 1024})
	r := rawDial(t, addr)
	r.send("ARGS 12345678 " + strings.Repeat("a", 2000) + "\n")
	r.expect(`"error_code":"line_too_long"`)
	r.expectClosed()
	r = rawDial(t, addr)
	r.send(strings.Repeat("x", 100000)) // no line end at all
	r.expect(`"error_code":"line_too_long"`)
	r.expectClosed()
}

func TestTooManyConnections(t *testing.T) {
	addr, _ := testServer(t, Config{MaxConns: 2})
	a, b := rawDial(t, addr), rawDial(t, addr)
	a.send("LIST\n")
	a.expect("[]")
	b.send("LIST\n")
	b.expect("[]")
	c := rawDial(t, addr)
	c.expect(`"error_code":"too_many_connections"`)
	c.expectClosed()
}

func TestUploadSizeRefused(t *testing.T) {
	addr, _ := testServer(t, Config{MaxBytes: 1 << 20})
	for _, tc := range []struct{ line, code string }{
		{"UPLOAD 2097152\n", "invalid_size"},
		{"UPLOAD 0\n", "invalid_size"},
		{"UPLOAD -1\n", "invalid_size"},
		{"UPLOAD lots\n", "invalid_size"},
		{"UPLOAD\n", "invalid_arguments"},
		{"UPLOAD 10 a b\n", "invalid_arguments"},
		{"UPLOAD 10 ../x\n", "invalid_exec_path"},
		{"UPLOAD 10 /bin/sh\n", "invalid_exec_path"},
	} {
		r := rawDial(t, addr)
		r.send(tc.line)
		r.expect(`"error_code":"` + tc.code + `"`)
		r.expectClosed()
	}
}

func TestUploadNotELF(t *testing.T) {
	addr, _ := testServer(t, Config{})
	r := rawDial(t, addr)
	r.send("UPLOAD 12\n#!/bin/sh\nid\n")
	r.expect(`"error_code":"invalid_elf"`)
	r.send("UPLOAD 2\nMZ") // shorter than the magic
	r.expect(`"error_code":"invalid_elf"`)
	r.send("LIST\n") // the payload was consumed: the connection is still in step
	r.expect("[]")
}

func TestMaxSessions(t *testing.T) {
	dir := programs(t)
	addr, _ := testServer(t, Config{MaxSessions: 2})
	c := dial(t, addr)
	img, _ := os.ReadFile(filepath.Join(dir, "prog"))
	a := c.upload(img, "")
	c.upload(img, "")
	r := rawDial(t, addr)
	r.send(fmt.Sprintf("UPLOAD %d\n", len(img)))
	r.expect(`"error_code":"max_sessions_reached"`)
	r.expectClosed()
	c.ok("DELETE " + a)
	c.upload(img, "")
}

func TestMaxTotalBytes(t *testing.T) {
	dir := programs(t)
	img, _ := os.ReadFile(filepath.Join(dir, "prog"))
	addr, srv := testServer(t, Config{MaxBytes: int64(len(img)) * 3 / 2})
	c := dial(t, addr)
	a := c.upload(img, "")
	r := rawDial(t, addr)
	r.send(fmt.Sprintf("UPLOAD %d\n", len(img)))
	r.expect(`"error_code":"max_total_bytes_reached"`)
	r.expectClosed()
	c.ok("DELETE " + a)
	c.upload(img, "")
	_, _, used := srv.progs.Usage()
	if used != int64(len(img)) {
		t.Errorf("budget in use %d, want %d", used, len(img))
	}
}

func TestBundleAttacksRefused(t *testing.T) {
	dir := programs(t)
	elf, _ := os.ReadFile(filepath.Join(dir, "prog"))
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	addr, srv := testServer(t, Config{MaxBytes: 4 << 20, MaxEntries: 50})
	exe := file("app", 0o755, elf)
	many := []tarEntry{exe}
	for i := 0; i < 60; i++ {
		many = append(many, file(fmt.Sprintf("f%d", i), 0o644, []byte("x")))
	}
	for _, tc := range []struct {
		name     string
		entries  []tarEntry
		execPath string
		code     string
	}{
		{"absolute path", []tarEntry{exe, file("/etc/evil", 0o644, []byte("x"))}, "app", "extract_failed"},
		{"dot-dot path", []tarEntry{exe, file("a/../../evil", 0o644, []byte("x"))}, "app", "extract_failed"},
		{"symlink to absolute path", []tarEntry{exe, {hdr: symlinkHeader("etc", "/etc")}}, "app", "extract_failed"},
		{"symlink out of the bundle", []tarEntry{exe, {hdr: symlinkHeader("a/up", "../..")}}, "app", "extract_failed"},
		{"write through symlink", []tarEntry{exe, {hdr: symlinkHeader("d", ".")}, file("d/../../x", 0o644, nil)}, "app", "extract_failed"},
		{"hard link out of the bundle", []tarEntry{exe, {hdr: tar.Header{Typeflag: tar.TypeLink, Name: "pw", Linkname: "../../etc/passwd"}}}, "app", "extract_failed"},
		{"hard link to absolute path", []tarEntry{exe, {hdr: tar.Header{Typeflag: tar.TypeLink, Name: "pw", Linkname: "/etc/passwd"}}}, "app", "extract_failed"},
		{"character device", []tarEntry{exe, {hdr: tar.Header{Typeflag: tar.TypeChar, Name: "null", Devmajor: 1, Devminor: 3, Mode: 0o666}}}, "app", "extract_failed"},
		{"block device", []tarEntry{exe, {hdr: tar.Header{Typeflag: tar.TypeBlock, Name: "sda", Devmajor: 8, Mode: 0o666}}}, "app", "extract_failed"},
		{"fifo", []tarEntry{exe, {hdr: tar.Header{Typeflag: tar.TypeFifo, Name: "pipe", Mode: 0o666}}}, "app", "extract_failed"},
		{"archive bomb (bytes)", []tarEntry{exe, file("zeros", 0o644, make([]byte, 6<<20))}, "app", "extract_failed"},
		{"archive bomb (entries)", many, "app", "extract_failed"},
		{"duplicate entry", []tarEntry{exe, file("app", 0o755, elf)}, "app", "extract_failed"},
		{"exec_path missing", []tarEntry{exe}, "bin/app", "invalid_exec_path"},
		{"exec_path is a directory", []tarEntry{exe, {hdr: dirHeader("bin/")}}, "bin", "invalid_exec_path"},
		{"exec_path is a symlink", []tarEntry{exe, {hdr: symlinkHeader("link", "app")}}, "link", "invalid_exec_path"},
		{"exec_path not ELF", []tarEntry{file("run.sh", 0o755, []byte("#!/bin/sh\n"))}, "run.sh", "invalid_elf"},
		{"not gzip", nil, "app", "extract_failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			payload := []byte("this is not a gzip stream")
			if tc.entries != nil {
				payload = makeTarGz(t, tc.entries...)
			}
			r := rawDial(t, addr)
			r.send(fmt.Sprintf("UPLOAD %d %s\n", len(payload), tc.execPath))
			r.c.Write(payload)
			r.expect(`"error_code":"` + tc.code + `"`)
			r.send("LIST\n") // the connection is still in step
			r.expect("[]")
			left, _ := os.ReadDir(tmp)
			if len(left) != 0 {
				t.Errorf("files left after the refusal: %v", left)
			}
			if _, err := os.Stat("/etc/evil"); err == nil {
				t.Fatal("/etc/evil was written")
			}
			_, pending, used := srv.progs.Usage()
			if used != 0 || pending != 0 {
				t.Errorf("budget not released: %d bytes, %d pending", used, pending)
			}
		})
	}
}

func TestExtractedFilesArePrivate(t *testing.T) {
	dir := programs(t)
	elf, _ := os.ReadFile(filepath.Join(dir, "prog"))
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	addr, _ := testServer(t, Config{})
	c := dial(t, addr)
	c.upload(makeTarGz(t,
		tarEntry{hdr: tar.Header{Typeflag: tar.TypeDir, Name: "pub/", Mode: 0o777}},
		file("pub/app", 0o6777, elf), // setuid, setgid, world-writable
		file("pub/data", 0o666, []byte("d")),
		tarEntry{hdr: tar.Header{Typeflag: tar.TypeLink, Name: "pub/data2", Linkname: "pub/data"}},
	), "pub/app")
	want := map[string]os.FileMode{"pub": os.ModeDir | 0o700, "pub/app": 0o700, "pub/data": 0o600, "pub/data2": 0o600}
	bundles, _ := filepath.Glob(filepath.Join(tmp, "bundle-*"))
	if len(bundles) != 1 {
		t.Fatalf("bundle dirs %v", bundles)
	}
	if fi, _ := os.Stat(bundles[0]); fi.Mode().Perm() != 0o700 {
		t.Errorf("bundle dir mode %v", fi.Mode())
	}
	for name, mode := range want {
		fi, err := os.Lstat(filepath.Join(bundles[0], name))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != mode {
			t.Errorf("%s: mode %v, want %v", name, fi.Mode(), mode)
		}
	}
}

func TestReadLine(t *testing.T) {
	for _, tc := range []struct {
		in    string
		lines []string
		err   error
	}{
		{"A\nB\r\n", []string{"A", "B"}, io.EOF},
		{"no end", nil, io.EOF},
		{strings.Repeat("x", 10) + "\n", []string{strings.Repeat("x", 10)}, io.EOF},
		{strings.Repeat("x", 11) + "\n", nil, wire.ErrLineTooLong},
		{strings.Repeat("x", 10) + "\r\n", []string{strings.Repeat("x", 10)}, io.EOF},
	} {
		lr := newLineReader(strings.NewReader(tc.in), 10)
		var got []string
		var err error
		for {
			var l string
			var raw []byte
			raw, err = lr.Next()
			l = string(raw)
			if err != nil {
				break
			}
			got = append(got, l)
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.lines) || err != tc.err {
			t.Errorf("%q: %q %v, want %q %v", tc.in, got, err, tc.lines, tc.err)
		}
	}
	// Long lines across the reader's buffer.
	lr := newLineReader(bytes.NewReader([]byte(strings.Repeat("y", 100)+"\n")), 200)
	if l, err := lr.Next(); err != nil || len(l) != 100 {
		t.Errorf("long line: %d %v", len(l), err)
	}
}

func TestParseCommand(t *testing.T) {
	c, err := parseCommand("args  a3f2c9d1   --port 8080\t --verbose ")
	if err != nil || c.name != "ARGS" || fmt.Sprint(c.args) != "[a3f2c9d1 --port 8080 --verbose]" {
		t.Fatalf("%+v %v", c, err)
	}
	if r := c.rest(2); r != "--port 8080\t --verbose " {
		t.Errorf("rest %q", r)
	}
	if r := c.rest(5); r != "" {
		t.Errorf("rest past the end %q", r)
	}
	for _, bad := range []string{"LIST\x00", "ENV x A=\xff", "A\x7f"} {
		if _, err := parseCommand(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestUnauthenticatedCannotLockOut: with a token, connections that never send AUTH take
// none of the authenticated slots, are closed after the AUTH deadline, and when their own
// quota is full the oldest gives way: the owner always gets in (issue 12, item 6: 128
// silent connections used to answer the owner too_many_connections for 15 minutes).
func TestUnauthenticatedCannotLockOut(t *testing.T) {
	addr, _ := testServer(t, Config{Token: "s3cret", MaxConns: 4, MaxPending: 3, AuthTimeout: 2 * time.Second})
	var silent []*rawConn
	for range 10 {
		silent = append(silent, rawDial(t, addr))
	}
	time.Sleep(100 * time.Millisecond) // let the daemon accept them all
	owner := rawDial(t, addr)
	owner.send("AUTH s3cret\n")
	owner.expect(`"ok":true`)
	owner.send("LIST\n")
	owner.expect("[]")
	// The oldest silent connections were closed to make room; the last ones are closed at
	// the AUTH deadline even though they keep sending lines.
	start := time.Now()
	last := silent[len(silent)-1]
	last.send("LIST\n")
	last.expect(`"error_code":"unauthorized"`)
	last.expectClosed()
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("closed after %v", d)
	}
	silent[0].expectClosed()
}
