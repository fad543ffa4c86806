//go:build unix

package traces

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used, all threads: benchmarks
// report work per CPU-second too, which a busy machine distorts less than
// work per wall-clock second.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
