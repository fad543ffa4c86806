//go:build !purego

#include "textflag.h"

// func appCaller() caller
//
// Without a frame of its own, appCaller sees its caller's frame pointer
// in BP: at 0(BP) the saved frame pointer of the caller's caller, at 8(BP)
// the caller's return address. The caller's caller's return address is
// 8 bytes above its saved frame pointer, if it has one.
TEXT ·appCaller(SB), NOSPLIT|NOFRAME, $0-16
	MOVQ	8(BP), AX
	MOVQ	AX, ret_pc+0(FP)
	MOVQ	0(BP), CX
	XORQ	DX, DX
	TESTQ	CX, CX
	JZ	done
	MOVQ	8(CX), DX
done:
	MOVQ	DX, ret_up+8(FP)
	RET
