package philox

// The constants of Philox4x32 (Salmon et al. 2011, Table 2; Random123's
// philox.h): the two multipliers of a round and the Weyl sequence's
// increments of the key schedule.
const (
	M0 = 0xD2511F53
	M1 = 0xCD9E8D57
	W0 = 0x9E3779B9 // the golden ratio
	W1 = 0xBB67AE85 // √3 − 1
)

// Rounds is the number of rounds of Philox4x32-10, the variant the
// paper recommends and cuRAND and PyTorch use.
const Rounds = 10

// Counter is Philox4x32's 128-bit counter, four 32-bit words; Key its
// 64-bit key.
type (
	Counter [4]uint32
	Key     [2]uint32
)

// Block returns Philox4x32-R of counter c under key k: four 32-bit
// numbers. Each round multiplies words 0 and 2 by M0 and M1 into 64-bit
// products and mixes their halves with words 1 and 3 and the round's key;
// the key advances by (W0, W1) between rounds.
func Block(c Counter, k Key, rounds int) Counter {
	for r := 0; r < rounds; r++ {
		if r > 0 {
			k[0] += W0
			k[1] += W1
		}
		p0 := uint64(M0) * uint64(c[0])
		p1 := uint64(M1) * uint64(c[2])
		c = Counter{uint32(p1>>32) ^ c[1] ^ k[0], uint32(p1), uint32(p0>>32) ^ c[3] ^ k[1], uint32(p0)}
	}
	return c
}

// Block10 is Block with Rounds rounds, unrolled with its words in
// registers: the function the CPU back end's dropout calls once per four
// units.
func Block10(c Counter, k Key) Counter {
	c0, c1, c2, c3 := c[0], c[1], c[2], c[3]
	k0, k1 := k[0], k[1]
	c0, c1, c2, c3 = round(c0, c1, c2, c3, k0, k1)
	k0, k1 = k0+W0, k1+W1
	c0, c1, c2, c3 = round(c0, c1, c2, c3, k0, k1)
	k0, k1 = k0+W0, k1+W1
	c0, c1, c2, c3 = round(c0, c1, c2, c3, k0, k1)
	k0, k1 = k0+W0, k1+W1
	c0, c1, c2, c3 = round(c0, c1, c2, c3, k0, k1)
	k0, k1 = k0+W0, k1+W1
	c0, c1, c2, c3 = round(c0, c1, c2, c3, k0, k1)
	k0, k1 = k0+W0, k1+W1
	c0, c1, c2, c3 = round(c0, c1, c2, c3, k0, k1)
	k0, k1 = k0+W0, k1+W1
	c0, c1, c2, c3 = round(c0, c1, c2, c3, k0, k1)
	k0, k1 = k0+W0, k1+W1
	c0, c1, c2, c3 = round(c0, c1, c2, c3, k0, k1)
	k0, k1 = k0+W0, k1+W1
	c0, c1, c2, c3 = round(c0, c1, c2, c3, k0, k1)
	k0, k1 = k0+W0, k1+W1
	c0, c1, c2, c3 = round(c0, c1, c2, c3, k0, k1)
	return Counter{c0, c1, c2, c3}
}

// round is one round of Philox4x32 under the round key (k0, k1).
func round(c0, c1, c2, c3, k0, k1 uint32) (uint32, uint32, uint32, uint32) {
	p0 := uint64(M0) * uint64(c0)
	p1 := uint64(M1) * uint64(c2)
	return uint32(p1>>32) ^ c1 ^ k0, uint32(p1), uint32(p0>>32) ^ c3 ^ k1, uint32(p0)
}

// KeyOf splits a 64-bit seed into a Key (low word first).
func KeyOf(seed uint64) Key { return Key{uint32(seed), uint32(seed >> 32)} }
