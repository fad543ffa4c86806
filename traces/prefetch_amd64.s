//go:build !purego

#include "textflag.h"

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
