#include "textflag.h"

// The lanes' offsets 0…7 of the first word of eight consecutive counters,
// and 8 (the second group's).
DATA iota<>+0(SB)/4, $0
DATA iota<>+4(SB)/4, $1
DATA iota<>+8(SB)/4, $2
DATA iota<>+12(SB)/4, $3
DATA iota<>+16(SB)/4, $4
DATA iota<>+20(SB)/4, $5
DATA iota<>+24(SB)/4, $6
DATA iota<>+28(SB)/4, $7
GLOBL iota<>(SB), RODATA|NOPTR, $32

// M0, M1, W0, W1 (philox.go) in every lane.
#define LANES(name, v) \
	DATA name<>+0(SB)/4, v \
	DATA name<>+4(SB)/4, v \
	DATA name<>+8(SB)/4, v \
	DATA name<>+12(SB)/4, v \
	DATA name<>+16(SB)/4, v \
	DATA name<>+20(SB)/4, v \
	DATA name<>+24(SB)/4, v \
	DATA name<>+28(SB)/4, v \
	GLOBL name<>(SB), RODATA|NOPTR, $32

LANES(m0, $0xD2511F53)
LANES(m1, $0xCD9E8D57)
LANES(w0, $0x9E3779B9)
LANES(w1, $0xBB67AE85)

// One round on eight blocks (words C0…C3, one block a 32-bit lane; the
// round's key in Y4, Y5; temporaries Y6, Y7, Y12…Y15):
//   (C0, C1, C2, C3) ← (hi(M1·C2) ⊕ C1 ⊕ K0, lo(M1·C2), hi(M0·C0) ⊕ C3 ⊕ K1, lo(M0·C0)).
// VPMULUDQ multiplies the even lanes; the odd lanes are shifted down and
// multiplied apart, and the halves blended back (0xAA: the odd lanes).
#define ROUND(C0, C1, C2, C3) \
	VPMULUDQ m0<>(SB), C0, Y6 \
	VPSRLQ $32, C0, Y7 \
	VPMULUDQ m0<>(SB), Y7, Y7 \
	VPMULUDQ m1<>(SB), C2, Y12 \
	VPSRLQ $32, C2, Y13 \
	VPMULUDQ m1<>(SB), Y13, Y13 \
	VPSRLQ $32, Y12, Y14 \
	VPBLENDD $0xAA, Y13, Y14, Y14 \
	VPSLLQ $32, Y13, Y13 \
	VPBLENDD $0xAA, Y13, Y12, Y12 \
	VPXOR C1, Y14, Y14 \
	VPXOR Y4, Y14, C0 \
	VMOVDQA Y12, C1 \
	VPSRLQ $32, Y6, Y15 \
	VPBLENDD $0xAA, Y7, Y15, Y15 \
	VPXOR C3, Y15, Y15 \
	VPXOR Y5, Y15, C2 \
	VPSLLQ $32, Y7, Y7 \
	VPBLENDD $0xAA, Y7, Y6, C3

#define BUMP \
	VPADDD w0<>(SB), Y4, Y4 \
	VPADDD w1<>(SB), Y5, Y5

// START(C0, C1, C2, C3) sets eight blocks' counters (AX + lane, c1, 0, 0).
#define START(C0, C1, C2, C3) \
	VMOVD AX, X6 \
	VPBROADCASTD X6, C0 \
	VPADDD iota<>(SB), C0, C0 \
	VMOVD R10, X6 \
	VPBROADCASTD X6, C1 \
	VPXOR C2, C2, C2 \
	VPXOR C3, C3, C3

#define KEY \
	VMOVD R8, X4 \
	VPBROADCASTD X4, Y4 \
	VMOVD R9, X5 \
	VPBROADCASTD X5, Y5

// STORE(C0, C1, C2, C3) transposes eight blocks (lane b of C0…C3: block b's
// words 0…3) to their order and writes them at DI.
#define STORE(C0, C1, C2, C3) \
	VPUNPCKLDQ C1, C0, Y6 \
	VPUNPCKLDQ C3, C2, Y7 \
	VPUNPCKHDQ C1, C0, Y12 \
	VPUNPCKHDQ C3, C2, Y13 \
	VPUNPCKLQDQ Y7, Y6, Y14 \
	VPUNPCKHQDQ Y7, Y6, Y15 \
	VPUNPCKLQDQ Y13, Y12, Y6 \
	VPUNPCKHQDQ Y13, Y12, Y7 \
	VPERM2I128 $0x20, Y15, Y14, C0 \
	VPERM2I128 $0x20, Y7, Y6, C1 \
	VPERM2I128 $0x31, Y15, Y14, C2 \
	VPERM2I128 $0x31, Y7, Y6, C3 \
	VMOVDQU C0, (DI) \
	VMOVDQU C1, 32(DI) \
	VMOVDQU C2, 64(DI) \
	VMOVDQU C3, 96(DI) \
	ADDQ $128, DI

#define ROUNDS2 \
	ROUND(Y0, Y1, Y2, Y3) \
	ROUND(Y8, Y9, Y10, Y11)

// func words8(dst *uint32, m int, g0, c1, k0, k1 uint32)
// Two groups of eight blocks at a time (independent chains of rounds, for
// the multiplications' latency); when m is odd the last group's partner is
// computed and not written.
TEXT ·words8(SB), NOSPLIT, $0-32
	MOVQ dst+0(FP), DI
	MOVQ m+8(FP), CX
	MOVL g0+16(FP), AX
	MOVL c1+20(FP), R10
	MOVL k0+24(FP), R8
	MOVL k1+28(FP), R9

loop:
	CMPQ CX, $0
	JEQ done
	START(Y0, Y1, Y2, Y3)
	ADDL $8, AX
	START(Y8, Y9, Y10, Y11)
	ADDL $8, AX
	KEY
	ROUNDS2
	BUMP
	ROUNDS2
	BUMP
	ROUNDS2
	BUMP
	ROUNDS2
	BUMP
	ROUNDS2
	BUMP
	ROUNDS2
	BUMP
	ROUNDS2
	BUMP
	ROUNDS2
	BUMP
	ROUNDS2
	BUMP
	ROUNDS2
	STORE(Y0, Y1, Y2, Y3)
	CMPQ CX, $1
	JEQ done
	STORE(Y8, Y9, Y10, Y11)
	SUBQ $2, CX
	JMP loop

done:
	VZEROUPPER
	RET
