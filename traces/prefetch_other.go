//go:build !amd64 || purego

package traces

// prefetchOp does nothing without the assembly of amd64.
func prefetchOp(*Op) {}

// prefetchOps does nothing without the assembly of amd64.
func prefetchOps(*Op, int) {}
