package sgemm

import "golang.org/x/sys/cpu"

// haveAsm reports whether the AVX2 + FMA micro-kernel can run here;
// haveAVX512 whether the AVX-512 one can (x/sys/cpu reports AVX-512 only
// where the operating system saves the ZMM and mask registers).
var (
	haveAsm    = cpu.X86.HasAVX2 && cpu.X86.HasFMA
	haveAVX512 = cpu.X86.HasAVX512F
)

// kernelAsmStrips is the AVX2 + FMA micro-kernel (kernel_amd64.s) over
// strips consecutive A strips of a packed block and the 6×16 tiles of C
// below one another: c[(6s+i)*ldc+j] += Σ_p a[s*6*kk+p*6+i]·b[p*16+j] (=
// with load false) for s < strips; one tile with strips = 1.
//
//go:noescape
func kernelAsmStrips(kk int, a, b, c *float32, ldc int, load bool, strips int)

// kernelAVX512 is the AVX-512 micro-kernel (kernel_avx512_amd64.s):
// c[i*ldc+j] += Σ_p a[p*8+i]·b[p*32+j] for the 8×32 tile (= with load
// false).
//
//go:noescape
func kernelAVX512(kk int, a, b, c *float32, ldc int, load bool)

// transpose8x8 writes dst[j*ldd+i] = src[i*lds+j] for i, j < 8 (AVX,
// transpose_amd64.s).
//
//go:noescape
func transpose8x8(dst *float32, ldd int, src *float32, lds int)

// pack6x8 writes dst[p*6+i] = src[i*lds+p] for i < 6, p < 8: eight columns
// of a six-row strip of A in packA's layout (AVX, transpose_amd64.s).
//
//go:noescape
func pack6x8(dst *float32, src *float32, lds int)

// dealRow writes dst[s*stride+j] = src[s*nr+j] for s < strips, j < nr (nr a
// multiple of 8): one row of B dealt out to packB's strips (AVX,
// transpose_amd64.s).
//
//go:noescape
func dealRow(dst, src *float32, strips, nr, stride int)
