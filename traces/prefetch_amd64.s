//go:build !purego

#include "textflag.h"

// func prefetchOp(op *Op)
TEXT ·prefetchOp(SB), NOSPLIT|NOFRAME, $0-8
	MOVQ op+0(FP), AX
	PREFETCHT0 (AX)
	PREFETCHT0 63(AX)
	RET
