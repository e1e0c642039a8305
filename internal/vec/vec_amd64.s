#include "textflag.h"

// func sumAsm(x *float32, n int) float64
// Σ x[i] for n a multiple of 16, in four float64 lanes of four.
TEXT ·sumAsm(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3

sumloop:
	VCVTPS2PD (SI), Y4
	VCVTPS2PD 16(SI), Y5
	VCVTPS2PD 32(SI), Y6
	VCVTPS2PD 48(SI), Y7
	VADDPD Y4, Y0, Y0
	VADDPD Y5, Y1, Y1
	VADDPD Y6, Y2, Y2
	VADDPD Y7, Y3, Y3
	ADDQ $64, SI
	SUBQ $16, CX
	JNZ sumloop
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD X1, X0, X0
	VPERMILPD $1, X0, X1
	VADDSD X1, X0, X0
	VMOVSD X0, ret+16(FP)
	VZEROUPPER
	RET

// func sqDevAsm(x *float32, n int, mu float64) float64
// Σ (x[i] − μ)² for n a multiple of 16, in four float64 lanes of four.
TEXT ·sqDevAsm(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	VBROADCASTSD mu+16(FP), Y8
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3

sqloop:
	VCVTPS2PD (SI), Y4
	VCVTPS2PD 16(SI), Y5
	VCVTPS2PD 32(SI), Y6
	VCVTPS2PD 48(SI), Y7
	VSUBPD Y8, Y4, Y4
	VSUBPD Y8, Y5, Y5
	VSUBPD Y8, Y6, Y6
	VSUBPD Y8, Y7, Y7
	VFMADD231PD Y4, Y4, Y0
	VFMADD231PD Y5, Y5, Y1
	VFMADD231PD Y6, Y6, Y2
	VFMADD231PD Y7, Y7, Y3
	ADDQ $64, SI
	SUBQ $16, CX
	JNZ sqloop
	VADDPD Y1, Y0, Y0
	VADDPD Y3, Y2, Y2
	VADDPD Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD X1, X0, X0
	VPERMILPD $1, X0, X1
	VADDSD X1, X0, X0
	VMOVSD X0, ret+24(FP)
	VZEROUPPER
	RET

// func affineAsm(y, x *float32, n int, a, b float32, relu bool)
// y = x·a + b (each rounded), max(·, 0) with relu (NaN → 0), n a multiple
// of 8.
TEXT ·affineAsm(SB), NOSPLIT, $0-33
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSS a+24(FP), Y6
	VBROADCASTSS b+28(FP), Y7
	VXORPS Y5, Y5, Y5
	MOVBLZX relu+32(FP), AX
	TESTL AX, AX
	JZ plainloop

reluloop:
	VMULPS (SI), Y6, Y0
	VADDPS Y7, Y0, Y0
	VMAXPS Y5, Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JNZ reluloop
	VZEROUPPER
	RET

plainloop:
	VMULPS (SI), Y6, Y0
	VADDPS Y7, Y0, Y0
	VMOVUPS Y0, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JNZ plainloop
	VZEROUPPER
	RET

// func maskedSumsAsm(x, dy *float32, n int, a, b float32, relu bool, mu float64) (sg, sgd float64)
// Σ g and Σ g·(x − μ) for n a multiple of 8, g = dy masked by x·a + b > 0
// with relu; float64 lanes.
TEXT ·maskedSumsAsm(SB), NOSPLIT, $0-64
	MOVQ x+0(FP), SI
	MOVQ dy+8(FP), DI
	MOVQ n+16(FP), CX
	VBROADCASTSS a+24(FP), Y12
	VBROADCASTSS b+28(FP), Y13
	MOVBLZX relu+32(FP), AX
	VBROADCASTSD mu+40(FP), Y14
	VXORPS Y15, Y15, Y15
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3

msloop:
	VMOVUPS (SI), Y4
	VMOVUPS (DI), Y5
	TESTL AX, AX
	JZ msnomask
	VMULPS Y12, Y4, Y6
	VADDPS Y13, Y6, Y6
	VCMPPS $14, Y15, Y6, Y7
	VANDPS Y7, Y5, Y5

msnomask:
	VCVTPS2PD X5, Y8
	VEXTRACTF128 $1, Y5, X9
	VCVTPS2PD X9, Y9
	VCVTPS2PD X4, Y10
	VEXTRACTF128 $1, Y4, X11
	VCVTPS2PD X11, Y11
	VSUBPD Y14, Y10, Y10
	VSUBPD Y14, Y11, Y11
	VADDPD Y8, Y0, Y0
	VADDPD Y9, Y1, Y1
	VFMADD231PD Y10, Y8, Y2
	VFMADD231PD Y11, Y9, Y3
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JNZ msloop
	VADDPD Y1, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD X1, X0, X0
	VPERMILPD $1, X0, X1
	VADDSD X1, X0, X0
	VMOVSD X0, sg+48(FP)
	VADDPD Y3, Y2, Y2
	VEXTRACTF128 $1, Y2, X3
	VADDPD X3, X2, X2
	VPERMILPD $1, X2, X3
	VADDSD X3, X2, X2
	VMOVSD X2, sgd+56(FP)
	VZEROUPPER
	RET

// func gradAsm(dx, x, dy *float32, n int, a, b float32, relu bool, k, q, r, m float32)
// dx = (k·g + q·(x − m)) + r, each operation rounded, g as in maskedSumsAsm;
// n a multiple of 8.
TEXT ·gradAsm(SB), NOSPLIT, $0-60
	MOVQ dx+0(FP), DX
	MOVQ x+8(FP), SI
	MOVQ dy+16(FP), DI
	MOVQ n+24(FP), CX
	VBROADCASTSS a+32(FP), Y12
	VBROADCASTSS b+36(FP), Y13
	MOVBLZX relu+40(FP), AX
	VBROADCASTSS k+44(FP), Y8
	VBROADCASTSS q+48(FP), Y9
	VBROADCASTSS r+52(FP), Y10
	VBROADCASTSS m+56(FP), Y11
	VXORPS Y15, Y15, Y15

gloop:
	VMOVUPS (SI), Y4
	VMOVUPS (DI), Y5
	TESTL AX, AX
	JZ gnomask
	VMULPS Y12, Y4, Y6
	VADDPS Y13, Y6, Y6
	VCMPPS $14, Y15, Y6, Y7
	VANDPS Y7, Y5, Y5

gnomask:
	VMULPS Y8, Y5, Y5
	VSUBPS Y11, Y4, Y4
	VMULPS Y9, Y4, Y4
	VADDPS Y4, Y5, Y5
	VADDPS Y10, Y5, Y5
	VMOVUPS Y5, (DX)
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, DX
	SUBQ $8, CX
	JNZ gloop
	VZEROUPPER
	RET

// func adamAsm(theta, grad, m, v *float32, n int, c *adamConsts)
// n is a positive multiple of 8. adamConsts: B1 0, B2 4, OneMinusB1 8,
// OneMinusB2 12, StepSize 16, BC2 20, Eps 24, WD 28, Decay 32, Decoupled 36.
// Each operation is adamGo's, rounded separately.
TEXT ·adamAsm(SB), NOSPLIT, $0-48
	MOVQ theta+0(FP), DI
	MOVQ grad+8(FP), SI
	MOVQ m+16(FP), R8
	MOVQ v+24(FP), R9
	MOVQ n+32(FP), CX
	MOVQ c+40(FP), AX
	VBROADCASTSS 0(AX), Y8
	VBROADCASTSS 4(AX), Y9
	VBROADCASTSS 8(AX), Y10
	VBROADCASTSS 12(AX), Y11
	VBROADCASTSS 16(AX), Y12
	VBROADCASTSS 20(AX), Y13
	VBROADCASTSS 24(AX), Y14
	MOVBLZX 36(AX), DX
	VBROADCASTSS 28(AX), Y15 // λ (L2 form)
	TESTL DX, DX
	JZ aloop
	VBROADCASTSS 32(AX), Y15 // 1 − lr·λ (decoupled form)

aloop:
	VMOVUPS (SI), Y0
	VMOVUPS (DI), Y1
	TESTL DX, DX
	JNZ adecay
	VMULPS Y1, Y15, Y2 // g ← g + λθ
	VADDPS Y2, Y0, Y0
	JMP amoments

adecay:
	VMULPS Y15, Y1, Y1 // θ ← θ·(1 − lr·λ)

amoments:
	VMULPS (R8), Y8, Y3 // m ← β₁m + (1−β₁)g
	VMULPS Y0, Y10, Y4
	VADDPS Y4, Y3, Y3
	VMOVUPS Y3, (R8)
	VMULPS (R9), Y9, Y5 // v ← β₂v + ((1−β₂)g)g
	VMULPS Y0, Y11, Y6
	VMULPS Y0, Y6, Y6
	VADDPS Y6, Y5, Y5
	VMOVUPS Y5, (R9)
	VSQRTPS Y5, Y6 // θ ← θ − (s·m)/(√v/√(1−β₂ᵗ) + ε)
	VDIVPS Y13, Y6, Y6
	VADDPS Y14, Y6, Y6
	VMULPS Y3, Y12, Y7
	VDIVPS Y6, Y7, Y7
	VSUBPS Y7, Y1, Y1
	VMOVUPS Y1, (DI)
	ADDQ $32, SI
	ADDQ $32, DI
	ADDQ $32, R8
	ADDQ $32, R9
	SUBQ $8, CX
	JNZ aloop
	VZEROUPPER
	RET

// func adam512Asm(theta, grad, m, v *float32, n int, c *adamConsts)
// adamAsm with sixteen values a vector (ZMM): n is a positive multiple of
// 16, and every value goes through the same operations, each rounded
// separately, so the bits are adamAsm's and adamGo's. Where the moments and
// gradients are subnormal, an Intel core takes a microcode assist for each
// instruction that reads or writes them; with twice the values an
// instruction, a row takes half as many (bench/NOTES.md, "Lever 18": 1.53×
// faster on subnormal rows).
TEXT ·adam512Asm(SB), NOSPLIT, $0-48
	MOVQ theta+0(FP), DI
	MOVQ grad+8(FP), SI
	MOVQ m+16(FP), R8
	MOVQ v+24(FP), R9
	MOVQ n+32(FP), CX
	MOVQ c+40(FP), AX
	VBROADCASTSS 0(AX), Z8
	VBROADCASTSS 4(AX), Z9
	VBROADCASTSS 8(AX), Z10
	VBROADCASTSS 12(AX), Z11
	VBROADCASTSS 16(AX), Z12
	VBROADCASTSS 20(AX), Z13
	VBROADCASTSS 24(AX), Z14
	MOVBLZX 36(AX), DX
	VBROADCASTSS 28(AX), Z15 // λ (L2 form)
	TESTL DX, DX
	JZ zloop
	VBROADCASTSS 32(AX), Z15 // 1 − lr·λ (decoupled form)

zloop:
	VMOVUPS (SI), Z0
	VMOVUPS (DI), Z1
	TESTL DX, DX
	JNZ zdecay
	VMULPS Z1, Z15, Z2 // g ← g + λθ
	VADDPS Z2, Z0, Z0
	JMP zmoments

zdecay:
	VMULPS Z15, Z1, Z1 // θ ← θ·(1 − lr·λ)

zmoments:
	VMULPS (R8), Z8, Z3 // m ← β₁m + (1−β₁)g
	VMULPS Z0, Z10, Z4
	VADDPS Z4, Z3, Z3
	VMOVUPS Z3, (R8)
	VMULPS (R9), Z9, Z5 // v ← β₂v + ((1−β₂)g)g
	VMULPS Z0, Z11, Z6
	VMULPS Z0, Z6, Z6
	VADDPS Z6, Z5, Z5
	VMOVUPS Z5, (R9)
	VSQRTPS Z5, Z6 // θ ← θ − (s·m)/(√v/√(1−β₂ᵗ) + ε)
	VDIVPS Z13, Z6, Z6
	VADDPS Z14, Z6, Z6
	VMULPS Z3, Z12, Z7
	VDIVPS Z6, Z7, Z7
	VSUBPS Z7, Z1, Z1
	VMOVUPS Z1, (DI)
	ADDQ $64, SI
	ADDQ $64, DI
	ADDQ $64, R8
	ADDQ $64, R9
	SUBQ $16, CX
	JNZ zloop
	VZEROUPPER
	RET

// func maxAbsBitsAsm(x *float32, n int) uint32
// The largest bits & 0x7fffffff of x[0..n), n a multiple of 64: four
// vectors of eight an iteration, each masked (VPAND) and folded into its own
// running maximum (VPMAXUD), the four then folded into one lane.
TEXT ·maxAbsBitsAsm(SB), NOSPLIT, $0-20
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	MOVL $0x7fffffff, AX
	VMOVD AX, X8
	VPBROADCASTD X8, Y8
	VPXOR Y0, Y0, Y0
	VPXOR Y1, Y1, Y1
	VPXOR Y2, Y2, Y2
	VPXOR Y3, Y3, Y3

maxabsloop:
	VPAND (SI), Y8, Y4
	VPAND 32(SI), Y8, Y5
	VPAND 64(SI), Y8, Y6
	VPAND 96(SI), Y8, Y7
	VPMAXUD Y4, Y0, Y0
	VPMAXUD Y5, Y1, Y1
	VPMAXUD Y6, Y2, Y2
	VPMAXUD Y7, Y3, Y3
	VPAND 128(SI), Y8, Y4
	VPAND 160(SI), Y8, Y5
	VPAND 192(SI), Y8, Y6
	VPAND 224(SI), Y8, Y7
	VPMAXUD Y4, Y0, Y0
	VPMAXUD Y5, Y1, Y1
	VPMAXUD Y6, Y2, Y2
	VPMAXUD Y7, Y3, Y3
	ADDQ $256, SI
	SUBQ $64, CX
	JNZ maxabsloop
	VPMAXUD Y1, Y0, Y0
	VPMAXUD Y3, Y2, Y2
	VPMAXUD Y2, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPMAXUD X1, X0, X0
	VPSHUFD $0x4e, X0, X1
	VPMAXUD X1, X0, X0
	VPSHUFD $0xb1, X0, X1
	VPMAXUD X1, X0, X0
	VMOVD X0, AX
	MOVL AX, ret+16(FP)
	VZEROUPPER
	RET

// func dropoutAsm(y, x *float32, w *uint32, n int, thr uint32, scale float32)
// y[i] = x[i]·(w[i] ≥ thr ? scale : 0) for n a multiple of 8. The unsigned
// comparison as a signed one of both sides with the sign bit flipped:
// VPCMPGTD gives thr > w, the lanes to drop; VPANDN keeps scale elsewhere.
TEXT ·dropoutAsm(SB), NOSPLIT, $0-40
	MOVQ y+0(FP), DI
	MOVQ x+8(FP), SI
	MOVQ w+16(FP), DX
	MOVQ n+24(FP), CX
	MOVL thr+32(FP), AX
	XORL $0x80000000, AX
	VMOVD AX, X4
	VPBROADCASTD X4, Y4
	MOVL $0x80000000, AX
	VMOVD AX, X5
	VPBROADCASTD X5, Y5
	VBROADCASTSS scale+36(FP), Y6

droploop:
	VMOVDQU (DX), Y0
	VPXOR Y5, Y0, Y0
	VPCMPGTD Y0, Y4, Y1
	VANDNPS Y6, Y1, Y1
	VMULPS (SI), Y1, Y1
	VMOVUPS Y1, (DI)
	ADDQ $32, DX
	ADDQ $32, SI
	ADDQ $32, DI
	SUBQ $8, CX
	JNZ droploop
	VZEROUPPER
	RET

// func minAbsBitsM1Asm(x *float32, n int) uint32
// The least (bits & 0x7fffffff) − 1 of x[0..n), unsigned (a zero's wraps to
// 0xffffffff), n a multiple of 8: four vectors of eight an iteration while
// 32 values are left, each masked (VPAND), less one (VPSUBD) and folded
// into its own running minimum (VPMINUD), then a vector at a time; the
// minima folded into one lane.
TEXT ·minAbsBitsM1Asm(SB), NOSPLIT, $0-20
	MOVQ x+0(FP), SI
	MOVQ n+8(FP), CX
	MOVL $0x7fffffff, AX
	VMOVD AX, X8
	VPBROADCASTD X8, Y8
	MOVL $1, AX
	VMOVD AX, X9
	VPBROADCASTD X9, Y9
	VPCMPEQD Y0, Y0, Y0
	VMOVDQU Y0, Y1
	VMOVDQU Y0, Y2
	VMOVDQU Y0, Y3
	CMPQ CX, $32
	JLT minsubone

minsubfour:
	VPAND (SI), Y8, Y4
	VPAND 32(SI), Y8, Y5
	VPAND 64(SI), Y8, Y6
	VPAND 96(SI), Y8, Y7
	VPSUBD Y9, Y4, Y4
	VPSUBD Y9, Y5, Y5
	VPSUBD Y9, Y6, Y6
	VPSUBD Y9, Y7, Y7
	VPMINUD Y4, Y0, Y0
	VPMINUD Y5, Y1, Y1
	VPMINUD Y6, Y2, Y2
	VPMINUD Y7, Y3, Y3
	ADDQ $128, SI
	SUBQ $32, CX
	CMPQ CX, $32
	JGE minsubfour

minsubone:
	TESTQ CX, CX
	JZ minsubfold
	VPAND (SI), Y8, Y4
	VPSUBD Y9, Y4, Y4
	VPMINUD Y4, Y0, Y0
	ADDQ $32, SI
	SUBQ $8, CX
	JMP minsubone

minsubfold:
	VPMINUD Y1, Y0, Y0
	VPMINUD Y3, Y2, Y2
	VPMINUD Y2, Y0, Y0
	VEXTRACTI128 $1, Y0, X1
	VPMINUD X1, X0, X0
	VPSHUFD $0x4e, X0, X1
	VPMINUD X1, X0, X0
	VPSHUFD $0xb1, X0, X1
	VPMINUD X1, X0, X0
	VMOVD X0, AX
	MOVL AX, ret+16(FP)
	VZEROUPPER
	RET

// POOLCORE: Y0, Y1 = 16 values of row 0, Y2, Y3 of row 1; Y14 the index of
// each lane's a. Out: Y4 the maxima (after the ReLU when R9 ≠ 0), Y5 the
// positions. Uses Y0–Y7; keeps Y8–Y15. The windows' a, b (row 0, even and
// odd columns) and c, d (row 1) by VSHUFPS and VPERMPD; the maximum is Go's
// max(max(a, b), max(c, d)) by the instructions Go's compiler emits for it
// (max(x, y) = −min(−x, −y), min(x, y) = MIN(t, x) | t with t = MIN(x, y)),
// so the bits are the Go twin's; the position the first of a, b, c, d equal
// to it (blends from d back to a); then the ReLU: no position unless v > 0,
// v = −min(−v, −0).
#define POOLCORE \
	VSHUFPS $0x88, Y1, Y0, Y4; \
	VSHUFPS $0xdd, Y1, Y0, Y5; \
	VSHUFPS $0x88, Y3, Y2, Y6; \
	VSHUFPS $0xdd, Y3, Y2, Y7; \
	VPERMPD $0xd8, Y4, Y4; \
	VPERMPD $0xd8, Y5, Y5; \
	VPERMPD $0xd8, Y6, Y6; \
	VPERMPD $0xd8, Y7, Y7; \
	VXORPS Y15, Y4, Y0; \
	VXORPS Y15, Y5, Y1; \
	VMINPS Y1, Y0, Y2; \
	VMINPS Y0, Y2, Y1; \
	VORPS Y2, Y1, Y0; \
	VXORPS Y15, Y6, Y1; \
	VXORPS Y15, Y7, Y2; \
	VMINPS Y2, Y1, Y3; \
	VMINPS Y1, Y3, Y2; \
	VORPS Y3, Y2, Y1; \
	VMINPS Y1, Y0, Y2; \
	VMINPS Y0, Y2, Y3; \
	VORPS Y2, Y3, Y0; \
	VXORPS Y15, Y0, Y0; \
	VPADDD Y12, Y14, Y3; \
	VPADDD Y8, Y3, Y1; \
	VCMPPS $0, Y0, Y6, Y2; \
	VBLENDVPS Y2, Y3, Y1, Y1; \
	VPADDD Y8, Y14, Y3; \
	VCMPPS $0, Y0, Y5, Y2; \
	VBLENDVPS Y2, Y3, Y1, Y1; \
	VCMPPS $0, Y0, Y4, Y2; \
	VBLENDVPS Y2, Y14, Y1, Y5; \
	VMOVAPS Y0, Y4; \
	VCMPPS $0x1e, Y9, Y0, Y2; \
	VBLENDVPS Y2, Y5, Y10, Y6; \
	VXORPS Y15, Y0, Y1; \
	VMINPS Y15, Y1, Y2; \
	VMINPS Y1, Y2, Y3; \
	VORPS Y2, Y3, Y7; \
	VXORPS Y15, Y7, Y7; \
	VBLENDVPS Y11, Y6, Y5, Y5; \
	VBLENDVPS Y11, Y7, Y4, Y4

// func maxPool2RowAsm(y *float32, arg *int32, r0, r1 *float32, n int, base, w int32, relu bool)
// One output row of the 2×2 max pool (MaxPool2Row): eight outputs an
// iteration (POOLCORE), the last 1–7 through masked loads and stores. The
// ReLU is applied in every lane and kept where relu is set (a blend on a
// mask of all ones or zeros, no branch).
TEXT ·maxPool2RowAsm(SB), NOSPLIT, $0-49
	MOVQ y+0(FP), DI
	MOVQ arg+8(FP), DX
	MOVQ r0+16(FP), SI
	MOVQ r1+24(FP), R8
	MOVQ n+32(FP), CX
	MOVL base+40(FP), AX
	MOVL w+44(FP), BX
	MOVBLZX relu+48(FP), R9
	NEGL R9                       // relu: all ones
	VMOVD R9, X11
	VPBROADCASTD X11, Y11         // the ReLU's blend mask
	MOVL $0x80000000, R10
	VMOVD R10, X15
	VPBROADCASTD X15, Y15         // sign
	VMOVD AX, X14
	VPBROADCASTD X14, Y14
	VMOVDQU ·poolIota2<>(SB), Y13
	VPADDD Y13, Y14, Y14          // index of a: base + 2·ox
	VMOVD BX, X12
	VPBROADCASTD X12, Y12         // w
	VPCMPEQD Y10, Y10, Y10        // −1 (all ones)
	VXORPS Y9, Y9, Y9             // 0
	VPSRLD $31, Y10, Y8           // 1
	VPSLLD $4, Y8, Y13            // 16

pool8:
	CMPQ CX, $8
	JLT pooltail
	VMOVUPS (SI), Y0
	VMOVUPS 32(SI), Y1
	VMOVUPS (R8), Y2
	VMOVUPS 32(R8), Y3
	POOLCORE
	VMOVUPS Y4, (DI)
	VMOVDQU Y5, (DX)
	ADDQ $64, SI
	ADDQ $64, R8
	ADDQ $32, DI
	ADDQ $32, DX
	VPADDD Y13, Y14, Y14
	SUBQ $8, CX
	JMP pool8

pooltail:
	TESTQ CX, CX
	JZ pooldone
	// Masks: the outputs lane < n (kept in Y13); the two input vectors
	// lane < 2n and lane + 8 < 2n.
	VMOVQ CX, X7
	VPBROADCASTD X7, Y7           // n
	VMOVDQU ·poolIota<>(SB), Y6   // 0..7
	VPCMPGTD Y6, Y7, Y13          // n > lane
	VPADDD Y7, Y7, Y7             // 2n
	VPCMPGTD Y6, Y7, Y4           // 2n > lane
	VPSLLD $3, Y8, Y5             // 8
	VPADDD Y5, Y6, Y6             // lane + 8
	VPCMPGTD Y6, Y7, Y5           // 2n > lane + 8
	VMASKMOVPS (SI), Y4, Y0
	VMASKMOVPS 32(SI), Y5, Y1
	VMASKMOVPS (R8), Y4, Y2
	VMASKMOVPS 32(R8), Y5, Y3
	POOLCORE
	VMASKMOVPS Y4, Y13, (DI)
	VPMASKMOVD Y5, Y13, (DX)

pooldone:
	VZEROUPPER
	RET

DATA ·poolIota2<>+0(SB)/4, $0
DATA ·poolIota2<>+4(SB)/4, $2
DATA ·poolIota2<>+8(SB)/4, $4
DATA ·poolIota2<>+12(SB)/4, $6
DATA ·poolIota2<>+16(SB)/4, $8
DATA ·poolIota2<>+20(SB)/4, $10
DATA ·poolIota2<>+24(SB)/4, $12
DATA ·poolIota2<>+28(SB)/4, $14
GLOBL ·poolIota2<>(SB), RODATA|NOPTR, $32

DATA ·poolIota<>+0(SB)/4, $0
DATA ·poolIota<>+4(SB)/4, $1
DATA ·poolIota<>+8(SB)/4, $2
DATA ·poolIota<>+12(SB)/4, $3
DATA ·poolIota<>+16(SB)/4, $4
DATA ·poolIota<>+20(SB)/4, $5
DATA ·poolIota<>+24(SB)/4, $6
DATA ·poolIota<>+28(SB)/4, $7
GLOBL ·poolIota<>(SB), RODATA|NOPTR, $32
