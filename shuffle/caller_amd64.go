//go:build !purego

package shuffle

// appCaller returns where the app called the function that calls
// appCaller (a method of the runtime's API that records an op): that
// function's return address, and the
// one above it (see [caller]). It reads the frame pointers, which makes it
// cheap (a few ns, where runtime.Callers unwinds the stack frame by frame
// at some hundreds of ns), and gives the pc runtime.Callers would.
//
// The function that calls appCaller must be a frame of its own: marked
// //go:noinline, and calling appCaller itself (not through a helper).
// TestSourceOfEveryAccessor checks every such function; build with
// -tags purego for the portable version (caller_other.go).
func appCaller() caller
