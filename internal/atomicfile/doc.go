// Package atomicfile writes the CLI's output files: a regular file
// appears whole or not at all (the data goes to a temporary file beside
// it, renamed over it only when the writer commits), keeps its mode, and
// a device or pipe is written into rather than replaced. A failed or
// interrupted run leaves no half-written output.
package atomicfile
