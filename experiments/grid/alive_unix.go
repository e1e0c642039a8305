//go:build unix

package grid

import (
	"errors"
	"syscall"
)

// processAlive reports whether process pid exists on this host (a signal 0
// reaches it, or it belongs to another user).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
