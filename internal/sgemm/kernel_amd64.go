package sgemm

import "golang.org/x/sys/cpu"

// haveAsm reports whether the AVX2 + FMA micro-kernel can run here.
var haveAsm = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// kernelAsm is the AVX2 + FMA micro-kernel (kernel_amd64.s): c[i*ldc+j] +=
// Σ_p a[p*MR+i]·b[p*NR+j] for the 6×16 tile.
//
//go:noescape
func kernelAsm(kk int, a, b, c *float32, ldc int)
