#include "textflag.h"

// LOADROW loads the row at SI into y and moves SI to the next row (R9 bytes
// on).
#define LOADROW(y) \
	VMOVUPS (SI), y; \
	ADDQ R9, SI

// STOREROW stores y to the row at DI and moves DI to the next row (R8
// bytes on).
#define STOREROW(y) \
	VMOVUPS y, (DI); \
	ADDQ R8, DI

// func transpose8x8(dst *float32, ldd int, src *float32, lds int)
// dst[j*ldd+i] = src[i*lds+j] for i, j < 8: the eight rows of src are
// loaded, transposed in registers (unpack, shuffle, 128-bit lane
// permutes: 24 instructions) and stored as eight rows of dst.
TEXT ·transpose8x8(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ ldd+8(FP), R8
	MOVQ src+16(FP), SI
	MOVQ lds+24(FP), R9
	SHLQ $2, R8
	SHLQ $2, R9
	LOADROW(Y0)
	LOADROW(Y1)
	LOADROW(Y2)
	LOADROW(Y3)
	LOADROW(Y4)
	LOADROW(Y5)
	LOADROW(Y6)
	VMOVUPS (SI), Y7
	VUNPCKLPS Y1, Y0, Y8
	VUNPCKHPS Y1, Y0, Y9
	VUNPCKLPS Y3, Y2, Y10
	VUNPCKHPS Y3, Y2, Y11
	VUNPCKLPS Y5, Y4, Y12
	VUNPCKHPS Y5, Y4, Y13
	VUNPCKLPS Y7, Y6, Y14
	VUNPCKHPS Y7, Y6, Y15
	VSHUFPS $0x44, Y10, Y8, Y0
	VSHUFPS $0xEE, Y10, Y8, Y1
	VSHUFPS $0x44, Y11, Y9, Y2
	VSHUFPS $0xEE, Y11, Y9, Y3
	VSHUFPS $0x44, Y14, Y12, Y4
	VSHUFPS $0xEE, Y14, Y12, Y5
	VSHUFPS $0x44, Y15, Y13, Y6
	VSHUFPS $0xEE, Y15, Y13, Y7
	VPERM2F128 $0x20, Y4, Y0, Y8
	VPERM2F128 $0x20, Y5, Y1, Y9
	VPERM2F128 $0x20, Y6, Y2, Y10
	VPERM2F128 $0x20, Y7, Y3, Y11
	VPERM2F128 $0x31, Y4, Y0, Y12
	VPERM2F128 $0x31, Y5, Y1, Y13
	VPERM2F128 $0x31, Y6, Y2, Y14
	VPERM2F128 $0x31, Y7, Y3, Y15
	STOREROW(Y8)
	STOREROW(Y9)
	STOREROW(Y10)
	STOREROW(Y11)
	STOREROW(Y12)
	STOREROW(Y13)
	STOREROW(Y14)
	VMOVUPS Y15, (DI)
	VZEROUPPER
	RET

// func pack6x8(dst *float32, src *float32, lds int)
// dst[p*6+i] = src[i*lds+p] for i < 6, p < 8: eight columns of six rows of
// A, as packA lays out a strip of the 6×16 kernel (48 contiguous values).
// The rows are unpacked and shuffled in pairs as in transpose8x8, against
// zero for the missing rows 6 and 7, and each column stored as four values
// and two.
TEXT ·pack6x8(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ lds+16(FP), R9
	SHLQ $2, R9
	LOADROW(Y0)
	LOADROW(Y1)
	LOADROW(Y2)
	LOADROW(Y3)
	LOADROW(Y4)
	VMOVUPS (SI), Y5
	VXORPS Y12, Y12, Y12
	VUNPCKLPS Y1, Y0, Y6  // r0[0] r1[0] r0[1] r1[1] | r0[4] r1[4] r0[5] r1[5]
	VUNPCKHPS Y1, Y0, Y7  // r0[2] r1[2] r0[3] r1[3] | r0[6] …
	VUNPCKLPS Y3, Y2, Y8
	VUNPCKHPS Y3, Y2, Y9
	VUNPCKLPS Y5, Y4, Y10
	VUNPCKHPS Y5, Y4, Y11
	VSHUFPS $0x44, Y8, Y6, Y0  // r0..r3 of columns 0 | 4
	VSHUFPS $0xEE, Y8, Y6, Y1  // 1 | 5
	VSHUFPS $0x44, Y9, Y7, Y2  // 2 | 6
	VSHUFPS $0xEE, Y9, Y7, Y3  // 3 | 7
	VSHUFPS $0x44, Y12, Y10, Y4 // r4, r5 of columns 0 | 4
	VSHUFPS $0xEE, Y12, Y10, Y5 // 1 | 5
	VSHUFPS $0x44, Y12, Y11, Y6 // 2 | 6
	VSHUFPS $0xEE, Y12, Y11, Y7 // 3 | 7
	VMOVUPS X0, 0(DI)
	VMOVSD X4, 16(DI)
	VMOVUPS X1, 24(DI)
	VMOVSD X5, 40(DI)
	VMOVUPS X2, 48(DI)
	VMOVSD X6, 64(DI)
	VMOVUPS X3, 72(DI)
	VMOVSD X7, 88(DI)
	VEXTRACTF128 $1, Y0, X0
	VEXTRACTF128 $1, Y4, X4
	VEXTRACTF128 $1, Y1, X1
	VEXTRACTF128 $1, Y5, X5
	VEXTRACTF128 $1, Y2, X2
	VEXTRACTF128 $1, Y6, X6
	VEXTRACTF128 $1, Y3, X3
	VEXTRACTF128 $1, Y7, X7
	VMOVUPS X0, 96(DI)
	VMOVSD X4, 112(DI)
	VMOVUPS X1, 120(DI)
	VMOVSD X5, 136(DI)
	VMOVUPS X2, 144(DI)
	VMOVSD X6, 160(DI)
	VMOVUPS X3, 168(DI)
	VMOVSD X7, 184(DI)
	VZEROUPPER
	RET

// func dealRow(dst, src *float32, strips, nr, stride int)
// dst[s*stride+j] = src[s*nr+j] for s < strips, j < nr (nr a multiple of 8):
// one row of B dealt out to the packed strips, eight values at a time.
TEXT ·dealRow(SB), NOSPLIT, $0-40
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ strips+16(FP), CX
	MOVQ nr+24(FP), DX
	MOVQ stride+32(FP), R8
	SHLQ $2, R8
	SHRQ $3, DX
	TESTQ CX, CX
	JZ dealdone
	TESTQ DX, DX
	JZ dealdone

dealstrip:
	MOVQ DX, R9
	MOVQ DI, R10

dealchunk:
	VMOVUPS (SI), Y0
	VMOVUPS Y0, (R10)
	ADDQ $32, SI
	ADDQ $32, R10
	DECQ R9
	JNZ dealchunk
	ADDQ R8, DI
	DECQ CX
	JNZ dealstrip

dealdone:
	VZEROUPPER
	RET
