package philox

import (
	"math"
	"math/bits"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
)

// TestKnownAnswers holds Block to the known-answer vectors Random123
// publishes for philox4x32 (tests/kat_vectors of
// github.com/DEShawResearch/random123, the lines "philox4x32 7" and
// "philox4x32 10": rounds, counter (4 words), key (2 words), expected (4
// words)) — an oracle independent of this code. A wrong multiplier, a
// swapped word, a key bumped before the first round or a round too many
// or too few fails.
func TestKnownAnswers(t *testing.T) {
	zero := Counter{}
	ones := Counter{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}
	pi := Counter{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}
	for _, c := range []struct {
		rounds int
		ctr    Counter
		key    Key
		want   Counter
	}{
		{7, zero, Key{}, Counter{0x5f6fb709, 0x0d893f64, 0x4f121f81, 0x4f730a48}},
		{7, ones, Key{0xffffffff, 0xffffffff}, Counter{0x5207ddc2, 0x45165e59, 0x4d8ee751, 0x8c52f662}},
		{7, pi, Key{0xa4093822, 0x299f31d0}, Counter{0x4dfccaba, 0x190a87f0, 0xc47362ba, 0xb6b5242a}},
		{10, zero, Key{}, Counter{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
		{10, ones, Key{0xffffffff, 0xffffffff}, Counter{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
		{10, pi, Key{0xa4093822, 0x299f31d0}, Counter{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
	} {
		assert.Equal(t, c.want, Block(c.ctr, c.key, c.rounds), "philox4x32-%d of %08x under %08x", c.rounds, c.ctr, c.key)
		if c.rounds == Rounds {
			assert.Equal(t, c.want, Block10(c.ctr, c.key))
		}
	}
}

// TestBlock10IsBlock: the register version is the general one with ten
// rounds, for generated counters and keys.
func TestBlock10IsBlock(t *testing.T) {
	p := gopter.NewProperties(nil)
	p.Property("Block10 = Block(·, ·, 10)", prop.ForAll(func(c0, c1, c2, c3, k0, k1 uint32) bool {
		c, k := Counter{c0, c1, c2, c3}, Key{k0, k1}
		return Block10(c, k) == Block(c, k, 10)
	}, gen.UInt32(), gen.UInt32(), gen.UInt32(), gen.UInt32(), gen.UInt32(), gen.UInt32()))
	p.TestingRun(t)
}

// TestBlockIsABijection: for a fixed key each round is invertible (an odd
// multiplier's product determines its factor; the other words are
// recovered by xor), so two different counters never give the same block
// — the property that makes distinct (layer, element) counters
// independent draws. Checked by inverting generated blocks round by round
// with a brute-force-free inverse built from the modular inverse of the
// multipliers.
func TestBlockIsABijection(t *testing.T) {
	params := gopter.DefaultTestParameters()
	params.MinSuccessfulTests = 300
	p := gopter.NewProperties(params)
	p.Property("inverse(Block(c)) = c", prop.ForAll(func(c0, c1, c2, c3, k0, k1 uint32, rounds int) bool {
		c, k := Counter{c0, c1, c2, c3}, Key{k0, k1}
		return invert(Block(c, k, rounds), k, rounds) == c
	}, gen.UInt32(), gen.UInt32(), gen.UInt32(), gen.UInt32(), gen.UInt32(), gen.UInt32(), gen.IntRange(1, 12)))
	p.TestingRun(t)
}

// invert undoes Block: round r's output words 1 and 3 are the low halves
// of the products, whose factors are recovered with the multipliers'
// inverses mod 2³²; the high halves then give words 1 and 3 back.
func invert(c Counter, k Key, rounds int) Counter {
	keys := make([]Key, rounds)
	for r := range keys {
		keys[r] = k
		k[0] += W0
		k[1] += W1
	}
	inv0, inv1 := modInverse(M0), modInverse(M1)
	for r := rounds - 1; r >= 0; r-- {
		x0 := c[3] * inv0
		x2 := c[1] * inv1
		hi0, _ := bits.Mul32(M0, x0)
		hi1, _ := bits.Mul32(M1, x2)
		c = Counter{x0, c[0] ^ hi1 ^ keys[r][0], x2, c[2] ^ hi0 ^ keys[r][1]}
	}
	return c
}

// modInverse returns a⁻¹ mod 2³² for odd a (Newton's iteration).
func modInverse(a uint32) uint32 {
	x := a
	for i := 0; i < 5; i++ {
		x *= 2 - a*x
	}
	return x
}

// TestWordsAreUniform: over 2¹⁶ counters, each of a block's four words
// falls in each of 16 equal bins within 5 binomial standard deviations of
// the expected count — a round count of 0 or a word left unmixed fails.
func TestWordsAreUniform(t *testing.T) {
	const n, bins = 1 << 16, 16
	var counts [4][bins]int
	for i := uint32(0); i < n; i++ {
		b := Block10(Counter{i, 7, 0, 0}, KeyOf(0x0123456789abcdef))
		for w := range b {
			counts[w][b[w]>>28]++
		}
	}
	want := float64(n) / bins
	sd := math.Sqrt(n * (1.0 / bins) * (1 - 1.0/bins))
	for w := range counts {
		for b, c := range counts[w] {
			assert.InDelta(t, want, float64(c), 5*sd, "word %d bin %d", w, b)
		}
	}
}
