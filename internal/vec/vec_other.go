//go:build !amd64

package vec

var useAsm = false

// No AVX-512 routine either (adam.go's selector).
const hasAVX512 = false

var useAVX512 = false

// HasAVX2 reports whether the assembly routines run on this processor.
const HasAVX2 = false

func sumAsm(x *float32, n int) float64                        { panic("vec: no assembly here") }
func sqDevAsm(x *float32, n int, mu float64) float64          { panic("vec: no assembly here") }
func affineAsm(y, x *float32, n int, a, b float32, relu bool) { panic("vec: no assembly here") }
func maskedSumsAsm(x, dy *float32, n int, a, b float32, relu bool, mu float64) (sg, sgd float64) {
	panic("vec: no assembly here")
}
func gradAsm(dx, x, dy *float32, n int, a, b float32, relu bool, k, q, r, m float32) {
	panic("vec: no assembly here")
}
func adamAsm(theta, grad, m, v *float32, n int, c *adamConsts) { panic("vec: no assembly here") }
func maxAbsBitsAsm(x *float32, n int) uint32                   { panic("vec: no assembly here") }
func minAbsBitsM1Asm(x *float32, n int) uint32                 { panic("vec: no assembly here") }
func maxPool2RowAsm(y *float32, arg *int32, r0, r1 *float32, n int, base, w int32, relu bool) {
	panic("vec: no assembly here")
}
func adam512Asm(theta, grad, m, v *float32, n int, c *adamConsts) {
	panic("vec: no assembly here")
}
func dropoutAsm(y, x *float32, w *uint32, n int, thr uint32, scale float32) {
	panic("vec: no assembly here")
}
