// Package examples holds Kite programs a newcomer can run (polydbg run examples/fib.kite);
// they are embedded so that `polydbg demo` needs nothing but the binary.
package examples

import "embed"

// FS holds every example program.
//
//go:embed *.kite
var FS embed.FS
