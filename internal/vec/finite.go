package vec

// AllFinite reports whether no value of x is NaN or ±Inf. The assembly
// reads the bits, not float arithmetic: a float32 is non-finite exactly when
// its exponent bits are all ones, that is when bits & 0x7fffffff, the bits
// without the sign, is at least 0x7f800000 (+Inf's bits; NaNs are above it,
// the largest finite value 0x7f7fffff below). So it takes the maximum of
// bits & 0x7fffffff over x, 64 values an iteration in AVX2, and compares it
// once: one pass at the speed memory streams, where a sum of v·0 in Go ran
// at a quarter of it (the training engine checks every gradient before each
// optimizer update). The tail after its blocks, and every value on a
// processor without AVX2, go to allFiniteGo.
func AllFinite(x []float32) bool {
	n := 0
	if useAsm {
		n = len(x) &^ 63
		if n > 0 && maxAbsBitsAsm(&x[0], n) >= 0x7f800000 {
			return false
		}
	}
	return allFiniteGo(x[n:])
}

// allFiniteGo is AllFinite's Go twin: four float32 sums of v·0, which stay
// ±0 unless a value is NaN or ±Inf (NaN·0 and ±Inf·0 are NaN). In Go it
// ran 1.4× as fast as a running maximum of the bits (2.8–3.0 GB/s against
// 1.9–2.1 on one core here, bench/NOTES.md), and it is what processors
// without AVX2 (arm64) run.
func allFiniteGo(x []float32) bool {
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += x[i] * 0
		s1 += x[i+1] * 0
		s2 += x[i+2] * 0
		s3 += x[i+3] * 0
	}
	for ; i < len(x); i++ {
		s0 += x[i] * 0
	}
	return s0+s1+s2+s3 == 0
}
