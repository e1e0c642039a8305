package vec

import "math"

// AllFinite reports whether no value of x is NaN or ±Inf. It reads the
// bits, not float arithmetic: a float32 is non-finite exactly when its
// exponent bits are all ones, that is when bits & 0x7fffffff, the bits
// without the sign, is at least 0x7f800000 (+Inf's bits; NaNs are above it,
// the largest finite value 0x7f7fffff below). So it takes the maximum of
// bits & 0x7fffffff over x, 64 values an iteration in AVX2, and compares it
// once: one pass at the speed memory streams, where a sum of v·0 in Go ran
// at a quarter of it (the training engine checks every gradient before each
// optimizer update).
func AllFinite(x []float32) bool {
	n := 0
	var m uint32
	if useAsm {
		n = len(x) &^ 63
		if n > 0 {
			m = maxAbsBitsAsm(&x[0], n)
		}
	}
	m = max(m, maxAbsBitsGo(x[n:]))
	return m < 0x7f800000
}

// maxAbsBitsGo returns the largest bits & 0x7fffffff of x (0 for none), the
// Go twin of maxAbsBitsAsm. The masked bits are below 2³¹, so signed and
// unsigned order agree on them.
func maxAbsBitsGo(x []float32) uint32 {
	var m uint32
	for _, v := range x {
		m = max(m, math.Float32bits(v)&0x7fffffff)
	}
	return m
}
