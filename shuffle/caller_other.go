//go:build !amd64 || purego

package shuffle

import "runtime"

// appCaller returns where the app called the function that calls
// appCaller (a method of the runtime's API that records an op): a program
// counter in the app's code. This
// is the portable version, which unwinds the stack with runtime.Callers
// (which skips the compiler's wrappers itself); on amd64 it reads the
// frame pointers (caller_amd64.go), which is much faster.
//
// The function that calls appCaller must be a frame of its own: marked
// //go:noinline, and calling appCaller itself (not through a helper).
//
//go:noinline
func appCaller() caller {
	var pcs [1]uintptr
	runtime.Callers(3, pcs[:]) // 0: Callers, 1: appCaller, 2: its caller, 3: the app
	return caller{pc: pcs[0]}
}
