//go:build !purego

#include "textflag.h"

// func prefetchOp(op *Op)
TEXT ·prefetchOp(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ op+0(FP), AX
	PREFETCHT0 (AX)
	PREFETCHT0 63(AX)
	RET

// func prefetchBytes(p unsafe.Pointer, n uintptr)
TEXT ·prefetchBytes(SB), NOSPLIT|NOFRAME, $0-16
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
	LEAQ (AX)(CX*1), DX
loop:
	CMPQ AX, DX
	JAE  last
	PREFETCHT0 (AX)
	ADDQ $64, AX
	JMP  loop
last:
	PREFETCHT0 -1(DX)
	RET
