//go:build !amd64

package sgemm

const haveAsm = false

func kernelAsm(kk int, a, b, c *float32, ldc int) {
	panic("sgemm: no assembly kernel on this architecture")
}
