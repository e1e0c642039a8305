// Package rng derives the project's random streams. A run has one seed; each
// consumer (bags, groups, init, augmentation, minibatch order, …) gets its
// own stream from the seed and a stable name, so adding a consumer never
// shifts another's stream: each stream is seeded by a hash of the run's
// seed and the consumer's name, never by a position in a shared sequence.
package rng

import (
	"hash/fnv"
	"math/rand/v2"
)

// New returns the stream named name of the run seeded with seed. The same
// (seed, name) always gives the same sequence, on every platform.
func New(seed int64, name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(uint64(seed), h.Sum64()))
}
