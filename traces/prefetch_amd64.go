//go:build !purego

package traces

// prefetchOp asks the CPU to bring the first 64 bytes of op, the fields
// of most ops (see Op), into its caches, without waiting for them.
//
//go:noescape
func prefetchOp(op *Op)
