//go:build !purego

#include "textflag.h"

// UNSETLANES leaves in DX a bit per clock of a block whose compare masks
// are in Y0–Y3 (clock j in bit j), set where the compare did not hold. It
// overwrites SI, DI and R8.
#define UNSETLANES \
	VMOVMSKPS Y0, DX; \
	VMOVMSKPS Y1, SI; \
	VMOVMSKPS Y2, DI; \
	VMOVMSKPS Y3, R8; \
	SHLL $8, SI; \
	SHLL $16, DI; \
	SHLL $24, R8; \
	ORL SI, DX; \
	ORL DI, DX; \
	ORL R8, DX; \
	NOTL DX

// func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eaxArg+0(FP), AX
	MOVL ecxArg+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() uint32
TEXT ·xgetbv(SB), NOSPLIT, $0-4
	MOVL $0, CX
	XGETBV
	MOVL AX, ret+0(FP)
	RET

// func compareVec(u, t *chunk) (above, below bool)
// A block's 32 clocks are its first 128 bytes: four YMM words. m =
// max(u, t) differs from t exactly in the clocks where u is above, and
// from u where u is below.
TEXT ·compareVec(SB), NOSPLIT, $0-18
	MOVQ u+0(FP), AX
	MOVQ t+8(FP), BX
	VMOVDQU 0(AX), Y0
	VMOVDQU 32(AX), Y1
	VMOVDQU 64(AX), Y2
	VMOVDQU 96(AX), Y3
	VMOVDQU 0(BX), Y4
	VMOVDQU 32(BX), Y5
	VMOVDQU 64(BX), Y6
	VMOVDQU 96(BX), Y7
	VPMAXUD Y4, Y0, Y8
	VPMAXUD Y5, Y1, Y9
	VPMAXUD Y6, Y2, Y10
	VPMAXUD Y7, Y3, Y11
	VPXOR Y4, Y8, Y12
	VPXOR Y5, Y9, Y13
	VPOR Y13, Y12, Y12
	VPXOR Y6, Y10, Y13
	VPOR Y13, Y12, Y12
	VPXOR Y7, Y11, Y13
	VPOR Y13, Y12, Y12
	VPXOR Y0, Y8, Y8
	VPXOR Y1, Y9, Y9
	VPOR Y9, Y8, Y8
	VPXOR Y2, Y10, Y10
	VPOR Y10, Y8, Y8
	VPXOR Y3, Y11, Y11
	VPOR Y11, Y8, Y8
	VPTEST Y12, Y12
	SETNE above+16(FP)
	VPTEST Y8, Y8
	SETNE below+17(FP)
	VZEROUPPER
	RET

// func maxBlocksVec(d, x, y *chunk)
// d may be x: both are read before d is written.
TEXT ·maxBlocksVec(SB), NOSPLIT, $0-24
	MOVQ d+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ y+16(FP), DX
	VMOVDQU 0(SI), Y0
	VMOVDQU 32(SI), Y1
	VMOVDQU 64(SI), Y2
	VMOVDQU 96(SI), Y3
	VPMAXUD 0(DX), Y0, Y0
	VPMAXUD 32(DX), Y1, Y1
	VPMAXUD 64(DX), Y2, Y2
	VPMAXUD 96(DX), Y3, Y3
	VMOVDQU Y0, 0(DI)
	VMOVDQU Y1, 32(DI)
	VMOVDQU Y2, 64(DI)
	VMOVDQU Y3, 96(DI)
	VZEROUPPER
	RET

// func lanesAboveBoth(u, v, t *[chunkSize]Clock) uint32
// Lane j of m = max(u, t) equals t's exactly where u's clock is at most
// t's; the lanes where that holds for u or v are set in the compare's
// mask, whose complement, a bit per lane (VMOVMSKPS), is the answer.
TEXT ·lanesAboveBoth(SB), NOSPLIT, $0-28
	MOVQ u+0(FP), AX
	MOVQ v+8(FP), BX
	MOVQ t+16(FP), CX
	VMOVDQU 0(CX), Y4
	VMOVDQU 32(CX), Y5
	VMOVDQU 64(CX), Y6
	VMOVDQU 96(CX), Y7
	VPMAXUD 0(AX), Y4, Y0
	VPMAXUD 32(AX), Y5, Y1
	VPMAXUD 64(AX), Y6, Y2
	VPMAXUD 96(AX), Y7, Y3
	VPMAXUD 0(BX), Y4, Y8
	VPMAXUD 32(BX), Y5, Y9
	VPMAXUD 64(BX), Y6, Y10
	VPMAXUD 96(BX), Y7, Y11
	VPCMPEQD Y4, Y0, Y0
	VPCMPEQD Y5, Y1, Y1
	VPCMPEQD Y6, Y2, Y2
	VPCMPEQD Y7, Y3, Y3
	VPCMPEQD Y4, Y8, Y8
	VPCMPEQD Y5, Y9, Y9
	VPCMPEQD Y6, Y10, Y10
	VPCMPEQD Y7, Y11, Y11
	VPOR Y8, Y0, Y0
	VPOR Y9, Y1, Y1
	VPOR Y10, Y2, Y2
	VPOR Y11, Y3, Y3
	UNSETLANES
	MOVL DX, ret+24(FP)
	VZEROUPPER
	RET

// func lanesDifferVec(u, t *[chunkSize]Clock) uint32
// The lanes where u's clock equals t's are set in the compare's mask,
// whose complement, a bit per lane (VMOVMSKPS), is the answer.
TEXT ·lanesDifferVec(SB), NOSPLIT, $0-20
	MOVQ u+0(FP), AX
	MOVQ t+8(FP), BX
	VMOVDQU 0(AX), Y0
	VMOVDQU 32(AX), Y1
	VMOVDQU 64(AX), Y2
	VMOVDQU 96(AX), Y3
	VPCMPEQD 0(BX), Y0, Y0
	VPCMPEQD 32(BX), Y1, Y1
	VPCMPEQD 64(BX), Y2, Y2
	VPCMPEQD 96(BX), Y3, Y3
	UNSETLANES
	MOVL DX, ret+16(FP)
	VZEROUPPER
	RET
