//go:build !linux

package main

// supervise runs the command in this process where no supervising parent is
// available (supervise_linux.go): a panic of the command is still recovered
// (runCommand), a fatal runtime error is not.
func supervise() (status int, supervised bool) { return 0, false }

// finished does nothing without a supervising parent.
func finished(int) {}
