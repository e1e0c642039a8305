package vec

import "golang.org/x/sys/cpu"

// useAsm selects the AVX2 routines (tests switch it off to check the Go
// twins).
var useAsm = HasAVX2

// HasAVX2 reports whether the assembly routines run on this processor.
var HasAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// hasAVX512 reports whether the AVX-512 routine of Adam runs here, and
// useAVX512 selects it (tests switch it off to check the AVX2 routine on
// the same rows).
var (
	hasAVX512 = HasAVX2 && cpu.X86.HasAVX512F
	useAVX512 = hasAVX512
)

//go:noescape
func sumAsm(x *float32, n int) float64

//go:noescape
func dropoutAsm(y, x *float32, w *uint32, n int, thr uint32, scale float32)

//go:noescape
func sqDevAsm(x *float32, n int, mu float64) float64

//go:noescape
func affineAsm(y, x *float32, n int, a, b float32, relu bool)

//go:noescape
func maskedSumsAsm(x, dy *float32, n int, a, b float32, relu bool, mu float64) (sg, sgd float64)

//go:noescape
func gradAsm(dx, x, dy *float32, n int, a, b float32, relu bool, k, q, r, m float32)

//go:noescape
func adamAsm(theta, grad, m, v *float32, n int, c *adamConsts)

//go:noescape
func adam512Asm(theta, grad, m, v *float32, n int, c *adamConsts)

//go:noescape
func maxAbsBitsAsm(x *float32, n int) uint32

//go:noescape
func minAbsBitsM1Asm(x *float32, n int) uint32

//go:noescape
func maxPool2RowAsm(y *float32, arg *int32, r0, r1 *float32, n int, base, w int32, relu bool)
