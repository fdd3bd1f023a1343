package wire

import (
	"net"
	"strings"
)

// IsLoopbackHost says whether hostOrAddr names this machine's loopback: "localhost" (any
// case) or a loopback IP. It takes a bare host, a bracketed IPv6 host ("[::1]") or a
// host:port (the port is ignored); anything else, including "", is not loopback.
func IsLoopbackHost(hostOrAddr string) bool {
	host := hostOrAddr
	if h, _, err := net.SplitHostPort(hostOrAddr); err == nil {
		host = h
	} else if len(host) >= 2 && host[0] == '[' && host[len(host)-1] == ']' {
		host = host[1 : len(host)-1]
	}
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
