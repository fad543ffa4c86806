//go:build !purego

#include "textflag.h"

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
