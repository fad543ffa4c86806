//go:build unix

package atomicfile

import (
	"errors"
	"syscall"
)

// running reports whether process pid exists (or may: a process this
// one may not signal is taken to be running).
func running(pid int) bool {
	err := syscall.Kill(pid, 0)
	return !errors.Is(err, syscall.ESRCH)
}
