package philox

import "golang.org/x/sys/cpu"

// useAsm selects words8 (tests switch it off to check Block10's loop).
var useAsm = cpu.X86.HasAVX2

// hasAsm reports whether words8 runs on this processor.
var hasAsm = cpu.X86.HasAVX2

// words8 writes the 32·m numbers of the 8·m blocks g0, g0+1, … of counter
// (g, c1, 0, 0) under key (k0, k1) to dst in Words' order: Philox4x32-10
// on eight blocks at once, one block a 32-bit lane of four YMM registers
// (the 32×32→64-bit products by VPMULUDQ on even and odd lanes), then a
// 4×8 transpose to the blocks' order.
//
//go:noescape
func words8(dst *uint32, m int, g0, c1, k0, k1 uint32)
