package rng

import "testing"

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
	if !same {
		t.Error("same seed and name gave different streams")
	}
	if !diffName {
		t.Error("different names gave the same stream")
	}
	if !diffSeed {
		t.Error("different seeds gave the same stream")
	}
}
