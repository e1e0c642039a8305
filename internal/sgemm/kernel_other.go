//go:build !amd64

package sgemm

const (
	haveAsm    = false
	haveAVX512 = false
)

func kernelAsm(kk int, a, b, c *float32, ldc int, load bool) {
	panic("sgemm: no assembly kernel on this architecture")
}

func kernelAVX512(kk int, a, b, c *float32, ldc int, load bool) {
	panic("sgemm: no assembly kernel on this architecture")
}
