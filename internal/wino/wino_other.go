//go:build !amd64

package wino

// useAsm is false: no assembly here (a variable, as on amd64, for the tests).
var useAsm = false

func input8(d *float32, pw int, v *float32, stride int)             { panic("wino: no assembly here") }
func outGrad8(dy0, dy1 *float32, dh *float32, stride int)           { panic("wino: no assembly here") }
func output8(m *float32, stride int, bias float32, y0, y1 *float32) { panic("wino: no assembly here") }
func inputGradRow8(s *float32, sw int, dx *float32)                 { panic("wino: no assembly here") }
func gradSEven8(zc, zp *float32, stride int, dst *float32, sw int)  { panic("wino: no assembly here") }
func gradSOdd8(zc, zp *float32, stride int, dst *float32, sw int)   { panic("wino: no assembly here") }
func input4x4(x *float32, v *float32, stride int)                   { panic("wino: no assembly here") }
func outGrad4x4(dy *float32, dh *float32, stride int)               { panic("wino: no assembly here") }
func output4x4(m *float32, stride int, bias float32, y *float32)    { panic("wino: no assembly here") }
func inputGrad4x4(z *float32, stride int, dx *float32)              { panic("wino: no assembly here") }
func input4(d *float32, pw int, v *float32, stride int)             { panic("wino: no assembly here") }
func outGrad4(dy0, dy1 *float32, dh *float32, stride int)           { panic("wino: no assembly here") }
func output4(m *float32, stride int, bias float32, y0, y1 *float32) { panic("wino: no assembly here") }
func inputGradRow4(s *float32, sw int, dx *float32)                 { panic("wino: no assembly here") }
func gradSEven4(zc, zp *float32, stride int, dst *float32, sw int)  { panic("wino: no assembly here") }
func gradSOdd4(zc, zp *float32, stride int, dst *float32, sw int)   { panic("wino: no assembly here") }

func f4input8(d *float32, pw int, v *float32, stride int)    { panic("wino: no assembly here") }
func f4outGrad8(dy *float32, w int, dh *float32, stride int) { panic("wino: no assembly here") }
func f4output8(m *float32, stride int, bias float32, y *float32, w int) {
	panic("wino: no assembly here")
}
func f4inputGradRow8(s *float32, sw int, row *float32)       { panic("wino: no assembly here") }
func f4input4(d *float32, pw int, v *float32, stride int)    { panic("wino: no assembly here") }
func f4outGrad4(dy *float32, w int, dh *float32, stride int) { panic("wino: no assembly here") }
func f4output4(m *float32, stride int, bias float32, y *float32, w int) {
	panic("wino: no assembly here")
}
func f4inputGradRow4(s *float32, sw int, row *float32)              { panic("wino: no assembly here") }
func f4gradSNone(zc, zp *float32, stride int, dst *float32, sw int) { panic("wino: no assembly here") }

var (
	f4gradS8 = [4]func(zc, zp *float32, stride int, dst *float32, sw int){f4gradSNone, f4gradSNone, f4gradSNone, f4gradSNone}
	f4gradS4 = f4gradS8
)
