package vec

import "math"

// HasSubnormal reports whether a value of x is subnormal (nonzero, with
// every exponent bit zero: 0 < |v| < 2⁻¹²⁶). On Intel's processors a
// multiplication that reads or makes such a value takes a microcode
// assist of about a hundred cycles for the whole vector instruction, so the
// matrix product asks it of its operands to choose which one it broadcasts
// (internal/sgemm, "The operand broadcast"). Like AllFinite it reads the
// bits: the least (bits & 0x7fffffff) − 1 over x, unsigned, is below
// 0x7fffff exactly when some value is subnormal (a zero wraps to the
// largest); eight values an instruction in AVX2, the rest in Go.
func HasSubnormal(x []float32) bool {
	n := 0
	if useAsm {
		n = len(x) &^ 7
		if n > 0 && minAbsBitsM1Asm(&x[0], n) < 0x7fffff {
			return true
		}
	}
	return hasSubnormalGo(x[n:])
}

// hasSubnormalGo is HasSubnormal's Go twin, a value at a time.
func hasSubnormalGo(x []float32) bool {
	for _, v := range x {
		if b := math.Float32bits(v) & 0x7fffffff; b != 0 && b < 0x800000 {
			return true
		}
	}
	return false
}
