package rng

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestStreamsAreReproducibleAndDistinct(t *testing.T) {
	a, b, c := New(7, "bags"), New(7, "bags"), New(7, "groups")
	d := New(8, "bags")
	same, diffName, diffSeed := true, false, false
	for i := 0; i < 100; i++ {
		x, y, z, w := a.Uint64(), b.Uint64(), c.Uint64(), d.Uint64()
		same = same && x == y
		diffName = diffName || x != z
		diffSeed = diffSeed || x != w
	}
	assert.True(t, same, "same seed and name gave different streams")
	assert.True(t, diffName, "different names gave the same stream")
	assert.True(t, diffSeed, "different seeds gave the same stream")
}
