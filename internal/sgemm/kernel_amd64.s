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

// PREFETCHC fetches the C row at R10 (both lines where its 64 bytes
// straddle two) and moves R10 to the next row (R8 bytes on).
#define PREFETCHC \
	PREFETCHT0 (R10); \
	PREFETCHT0 60(R10); \
	ADDQ R8, R10

// func kernelAsm(kk int, a, b, c *float32, ldc int, load bool)
// C[6×16] += A(kk×6 packed) · B(kk×16 packed), or C = A·B when load is
// false (C is not read). Accumulators Y4–Y15 (row i
// in Y(4+2i), Y(5+2i)); Y0, Y1 hold one row of B, Y2, Y3 broadcasts of A.
TEXT ·kernelAsm(SB), NOSPLIT, $0-41
	MOVQ kk+0(FP), CX
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DI
	MOVQ c+24(FP), DX
	MOVQ ldc+32(FP), R8
	MOVBQZX load+40(FP), R9
	SHLQ $2, R8
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
	VADDPS (DX), Y4, Y4
	VMOVUPS Y4, (DX)
	VADDPS 32(DX), Y5, Y5
	VMOVUPS Y5, 32(DX)
	ADDQ R8, DX
	VADDPS (DX), Y6, Y6
	VMOVUPS Y6, (DX)
	VADDPS 32(DX), Y7, Y7
	VMOVUPS Y7, 32(DX)
	ADDQ R8, DX
	VADDPS (DX), Y8, Y8
	VMOVUPS Y8, (DX)
	VADDPS 32(DX), Y9, Y9
	VMOVUPS Y9, 32(DX)
	ADDQ R8, DX
	VADDPS (DX), Y10, Y10
	VMOVUPS Y10, (DX)
	VADDPS 32(DX), Y11, Y11
	VMOVUPS Y11, 32(DX)
	ADDQ R8, DX
	VADDPS (DX), Y12, Y12
	VMOVUPS Y12, (DX)
	VADDPS 32(DX), Y13, Y13
	VMOVUPS Y13, 32(DX)
	ADDQ R8, DX
	VADDPS (DX), Y14, Y14
	VMOVUPS Y14, (DX)
	VADDPS 32(DX), Y15, Y15
	VMOVUPS Y15, 32(DX)
	VZEROUPPER
	RET

// β = 0 on the first block of k: C is written, not read.
overwrite:
	VMOVUPS Y4, (DX)
	VMOVUPS Y5, 32(DX)
	ADDQ R8, DX
	VMOVUPS Y6, (DX)
	VMOVUPS Y7, 32(DX)
	ADDQ R8, DX
	VMOVUPS Y8, (DX)
	VMOVUPS Y9, 32(DX)
	ADDQ R8, DX
	VMOVUPS Y10, (DX)
	VMOVUPS Y11, 32(DX)
	ADDQ R8, DX
	VMOVUPS Y12, (DX)
	VMOVUPS Y13, 32(DX)
	ADDQ R8, DX
	VMOVUPS Y14, (DX)
	VMOVUPS Y15, 32(DX)
	VZEROUPPER
	RET
