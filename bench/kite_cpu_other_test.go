//go:build !unix

package bench

import "time"

// cpuTime is not measured on this system: the tables show wall-clock time only.
func cpuTime() (time.Duration, bool) { return 0, false }
