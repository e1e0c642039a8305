//go:build !amd64

package philox

// No vector routine here: Words runs Block10's loop.
var useAsm = false

const hasAsm = false

func words8(*uint32, int, uint32, uint32, uint32, uint32) { panic("philox: no vector routine here") }
