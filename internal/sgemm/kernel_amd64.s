#include "textflag.h"

// KSTEP adds one value of k to the 6×16 tile: the row of B at bo(DI) into
// Y0, Y1, and the six values of A at ao(SI) broadcast two at a time into
// Y2, Y3, each row's product added to its two accumulators by FMA.
#define KSTEP(ao, bo) \
	VMOVUPS (bo)(DI), Y0; \
	VMOVUPS (bo+32)(DI), Y1; \
	VBROADCASTSS (ao)(SI), Y2; \
	VBROADCASTSS (ao+4)(SI), Y3; \
	VFMADD231PS Y0, Y2, Y4; \
	VFMADD231PS Y1, Y2, Y5; \
	VFMADD231PS Y0, Y3, Y6; \
	VFMADD231PS Y1, Y3, Y7; \
	VBROADCASTSS (ao+8)(SI), Y2; \
	VBROADCASTSS (ao+12)(SI), Y3; \
	VFMADD231PS Y0, Y2, Y8; \
	VFMADD231PS Y1, Y2, Y9; \
	VFMADD231PS Y0, Y3, Y10; \
	VFMADD231PS Y1, Y3, Y11; \
	VBROADCASTSS (ao+16)(SI), Y2; \
	VBROADCASTSS (ao+20)(SI), Y3; \
	VFMADD231PS Y0, Y2, Y12; \
	VFMADD231PS Y1, Y2, Y13; \
	VFMADD231PS Y0, Y3, Y14; \
	VFMADD231PS Y1, Y3, Y15

// ADDROW adds the accumulators lo, hi to the C row at DX (16 values).
#define ADDROW(lo, hi) \
	VADDPS (DX), lo, lo; \
	VMOVUPS lo, (DX); \
	VADDPS 32(DX), hi, hi; \
	VMOVUPS hi, 32(DX)

// PUTROW writes the accumulators lo, hi to the C row at DX.
#define PUTROW(lo, hi) \
	VMOVUPS lo, (DX); \
	VMOVUPS hi, 32(DX)

// PREFETCHC fetches the C row at R10 (both lines where its 64 bytes
// straddle two) and moves R10 to the next row (R8 bytes on).
#define PREFETCHC \
	PREFETCHT0 (R10); \
	PREFETCHT0 60(R10); \
	ADDQ R8, R10

// func kernelAsmStrips(kk int, a, b, c *float32, ldc int, load bool, strips int)
// For each of strips consecutive A strips (a advancing by 6·kk values, c by
// 6 rows): C[6×16] += A(kk×6 packed) · B(kk×16 packed), or C = A·B when
// load is false (C is not read). One call runs a B strip against a row
// block's strips (rowBlock), with no Go call between tiles. Accumulators
// Y4–Y15 (row i in Y(4+2i), Y(5+2i)); Y0, Y1 hold one row of B, Y2, Y3
// broadcasts of A; R12, R13 the tile's A strip and C corner, AX B's strip.
TEXT ·kernelAsmStrips(SB), NOSPLIT, $0-56
	MOVQ a+8(FP), R12
	MOVQ b+16(FP), AX
	MOVQ c+24(FP), R13
	MOVQ ldc+32(FP), R8
	MOVBQZX load+40(FP), R9
	MOVQ strips+48(FP), R11
	SHLQ $2, R8
	TESTQ R11, R11
	JZ done

tile:
	MOVQ kk+0(FP), CX
	MOVQ R12, SI
	MOVQ AX, DI
	MOVQ R13, DX
	// Fetch the C tile's rows (two lines each where a row of 64 bytes
	// straddles them) while the loop runs: its loads or stores at the end
	// would otherwise wait on memory.
	MOVQ DX, R10
	PREFETCHC
	PREFETCHC
	PREFETCHC
	PREFETCHC
	PREFETCHC
	PREFETCHC
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7
	VXORPS Y8, Y8, Y8
	VXORPS Y9, Y9, Y9
	VXORPS Y10, Y10, Y10
	VXORPS Y11, Y11, Y11
	VXORPS Y12, Y12, Y12
	VXORPS Y13, Y13, Y13
	VXORPS Y14, Y14, Y14
	VXORPS Y15, Y15, Y15
	// Four values of k a turn (kk/4 turns), then the rest one at a time.
	MOVQ CX, BX
	SHRQ $2, BX
	ANDQ $3, CX
	TESTQ BX, BX
	JZ tail

loop4:
	KSTEP(0, 0)
	KSTEP(24, 64)
	KSTEP(48, 128)
	KSTEP(72, 192)
	ADDQ $96, SI
	ADDQ $256, DI
	DECQ BX
	JNZ loop4

tail:
	TESTQ CX, CX
	JZ store

loop:
	KSTEP(0, 0)
	ADDQ $24, SI
	ADDQ $64, DI
	DECQ CX
	JNZ loop

store:
	TESTQ R9, R9
	JZ overwrite
	ADDROW(Y4, Y5)
	ADDQ R8, DX
	ADDROW(Y6, Y7)
	ADDQ R8, DX
	ADDROW(Y8, Y9)
	ADDQ R8, DX
	ADDROW(Y10, Y11)
	ADDQ R8, DX
	ADDROW(Y12, Y13)
	ADDQ R8, DX
	ADDROW(Y14, Y15)
	JMP next

// β = 0 on the first block of k: C is written, not read.
overwrite:
	PUTROW(Y4, Y5)
	ADDQ R8, DX
	PUTROW(Y6, Y7)
	ADDQ R8, DX
	PUTROW(Y8, Y9)
	ADDQ R8, DX
	PUTROW(Y10, Y11)
	ADDQ R8, DX
	PUTROW(Y12, Y13)
	ADDQ R8, DX
	PUTROW(Y14, Y15)

// The next A strip (6·kk values on) and C's next six rows.
next:
	MOVQ kk+0(FP), R10
	IMULQ $24, R10
	ADDQ R10, R12
	LEAQ (R8)(R8*2), R10
	SHLQ $1, R10
	ADDQ R10, R13
	DECQ R11
	JNZ tile

done:
	VZEROUPPER
	RET
