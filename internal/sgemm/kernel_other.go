//go:build !amd64

package sgemm

// Variables, not constants, as on amd64: tests switch them off.
var (
	haveAsm    = false
	haveAVX512 = false
)

func kernelAVX512(kk int, a, b, c *float32, ldc int, load bool) {
	panic("sgemm: no assembly kernel on this architecture")
}

func transpose8x8(dst *float32, ldd int, src *float32, lds int) {
	panic("sgemm: no assembly transpose on this architecture")
}

func pack6x8(dst *float32, src *float32, lds int) {
	panic("sgemm: no assembly transpose on this architecture")
}

func dealRow(dst, src *float32, strips, nr, stride int) {
	panic("sgemm: no assembly packing on this architecture")
}

func kernelAsmStrips(kk int, a, b, c *float32, ldc int, load bool, strips int) {
	panic("sgemm: no assembly kernel on this architecture")
}
