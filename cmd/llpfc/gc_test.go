package main

import (
	"runtime/debug"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestSetGCPercent: without GOGC in the environment llpfc sets the GC
// target to defaultGCPercent (bench/NOTES.md, "The 5.2 GB of a real
// WRN-16-4 training run", lever B); a user's
// GOGC wins.
func TestSetGCPercent(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	setGCPercent("")
	assert.Equal(t, defaultGCPercent, debug.SetGCPercent(100), "GOGC unset: llpfc's default")
	setGCPercent("200")
	assert.Equal(t, 100, debug.SetGCPercent(100), "GOGC set: left to the runtime")
}
