//go:build !unix

package grid

// processAlive cannot tell here: a claim is stale only by its age.
func processAlive(pid int) bool { return true }
