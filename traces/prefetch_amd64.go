//go:build !purego

package traces

import "unsafe"

// prefetchOps asks the CPU to bring the n ops from first on, whole, into
// its caches, without waiting for them. n > 0.
func prefetchOps(first *Op, n int) {
	prefetchBytes(unsafe.Pointer(first), uintptr(n)*unsafe.Sizeof(Op{}))
}

// prefetchBytes asks the CPU for every cache line of the n bytes from p
// on. n > 0.
//
//go:noescape
func prefetchBytes(p unsafe.Pointer, n uintptr)
