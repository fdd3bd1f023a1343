package wire

import (
	"net"
	"strings"
	"testing"
)

func TestIsLoopbackHost(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"localhost", true},
		{"LOCALHOST", true},
		{"LocalHost", true},
		{"127.0.0.1", true},
		{"127.5.6.7", true},
		{"::1", true},
		{"[::1]", true},
		{"[::1]:80", true},
		{"localhost:8080", true},
		{"127.0.0.1:4444", true},
		{"::ffff:127.0.0.1", true},

		{"", false},
		{"0.0.0.0", false},
		{"::", false},
		{"example.com", false},
		{"10.0.0.1", false},
		{"[::]:80", false},
		{":80", false},
		{"0.0.0.0:80", false},
		{"localhost.example.com", false},
		{"127.0.0.1.example.com", false},
		{"::1]", false},
		{"[::1", false},
		{"[[::1]]", false},
		{"::1:80", false}, // an IPv6 address, not ::1 with a port
		{"[", false},
		{"]", false},
		{"[]", false},
	} {
		if got := IsLoopbackHost(tc.in); got != tc.want {
			t.Errorf("IsLoopbackHost(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// FuzzIsLoopbackHost checks that IsLoopbackHost never panics and says true only for a
// host (the whole input, the inside of brackets, or the host of a host:port) that is
// "localhost" in any case or parses to a loopback IP.
func FuzzIsLoopbackHost(f *testing.F) {
	for _, s := range []string{"localhost", "LOCALHOST", "127.0.0.1", "127.5.6.7", "::1", "[::1]",
		"[::1]:80", "localhost:8080", "", "0.0.0.0", "::", "example.com", "10.0.0.1", "[::]:80",
		"[localhost]:1", "::ffff:127.0.0.1", "[", "]:", "%", "::1%lo"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !IsLoopbackHost(s) {
			return
		}
		candidates := []string{s}
		if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
			candidates = append(candidates, s[1:len(s)-1])
		}
		if h, _, err := net.SplitHostPort(s); err == nil {
			candidates = append(candidates, h)
		}
		for _, h := range candidates {
			if strings.EqualFold(h, "localhost") {
				return
			}
			if ip := net.ParseIP(h); ip != nil && ip.IsLoopback() {
				return
			}
		}
		t.Fatalf("IsLoopbackHost(%q) = true, but no host in it is localhost or a loopback IP", s)
	})
}
