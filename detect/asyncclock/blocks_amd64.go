//go:build !purego

package asyncclock

// vecBlocks says that the machine has AVX2 (and the OS saves its
// registers), so that blocks are compared and raised 8 clocks an
// instruction (compareVec, maxBlocksVec) instead of in Go. It is set
// once, before any engine runs, and never changes.
var vecBlocks = hasAVX2()

// hasAVX2 reports whether the CPU has AVX2 and the OS has enabled the
// YMM registers' state (the OSXSAVE and AVX bits of CPUID leaf 1, XCR0's
// SSE and AVX bits, and AVX2 in leaf 7).
func hasAVX2() bool {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return false
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const osxsave, avx = 1 << 27, 1 << 28
	if ecx1&osxsave == 0 || ecx1&avx == 0 || xgetbv()&6 != 6 {
		return false
	}
	_, ebx7, _, _ := cpuid(7, 0)
	return ebx7&(1<<5) != 0
}

// cpuid executes CPUID with EAX and ECX set to the arguments.
func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)

// xgetbv returns the low half of XCR0 (XGETBV with ECX 0).
func xgetbv() uint32

// compareVec reports whether some clock of u is above t's, and whether
// some clock of u is below t's, exactly, for any clocks (VPMAXUD, 8
// clocks an instruction, each block read once). Only with vecBlocks.
//
//go:noescape
func compareVec(u, t *chunk) (above, below bool)

// maxBlocksVec is maxBlocks with VPMAXUD. Only with vecBlocks.
//
//go:noescape
func maxBlocksVec(d, x, y *chunk)

// lanesAboveBoth returns the set of lanes j (bit j) where both u[j] and
// v[j] are above t[j], exactly (VPMAXUD, 8 clocks an instruction). Only
// with vecBlocks.
//
//go:noescape
func lanesAboveBoth(u, v, t *[chunkSize]Clock) uint32

// lanesDifferVec is lanesDiffer with VPCMPEQD. Only with vecBlocks.
//
//go:noescape
func lanesDifferVec(u, t *[chunkSize]Clock) uint32
