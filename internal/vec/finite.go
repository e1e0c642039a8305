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
// Go twin of maxAbsBitsAsm, in four running maxima (one alone waits on each
// compare: a quarter of the speed). The masked bits are below 2³¹, so signed
// and unsigned order agree on them.
func maxAbsBitsGo(x []float32) uint32 {
	var m0, m1, m2, m3 uint32
	i := 0
	for ; i+4 <= len(x); i += 4 {
		m0 = max(m0, math.Float32bits(x[i])&0x7fffffff)
		m1 = max(m1, math.Float32bits(x[i+1])&0x7fffffff)
		m2 = max(m2, math.Float32bits(x[i+2])&0x7fffffff)
		m3 = max(m3, math.Float32bits(x[i+3])&0x7fffffff)
	}
	for ; i < len(x); i++ {
		m0 = max(m0, math.Float32bits(x[i])&0x7fffffff)
	}
	return max(m0, m1, m2, m3)
}
