package philox

// Words writes the numbers of the blocks g0, g0+1, …, g0+len(dst)/4−1 of
// counter (g, c1, 0, 0) under key k into dst in order: dst[4·(g−g0)+j] is
// word j of Block10((g, c1, 0, 0), k), the counter wrapping at 2³² as a
// uint32 does. len(dst) must be a multiple of 4. This is the layout of a
// dropout mask (training/nn: element i reads word i mod 4 of block ⌊i/4⌋):
// a layer's numbers are made in runs, eight blocks at a time in vector
// registers where the processor has AVX2 (about a tenth of Block10's time
// a number), with the same bits as Block10 (TestWordsAreBlocks).
func Words(dst []uint32, g0, c1 uint32, k Key) {
	if len(dst)%4 != 0 {
		panic("philox.Words: len(dst) is not a multiple of 4")
	}
	n := len(dst) / 4
	i := 0
	if useAsm && n >= 8 {
		m := n / 8
		words8(&dst[0], m, g0, c1, k[0], k[1])
		i = 8 * m
	}
	for ; i < n; i++ {
		b := Block10(Counter{g0 + uint32(i), c1, 0, 0}, k)
		copy(dst[4*i:4*i+4], b[:])
	}
}
