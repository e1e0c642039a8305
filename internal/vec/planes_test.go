package vec

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// planeValue draws a value that is usually normal and sometimes one of the
// cases an order of operations shows: ±0, subnormals, values far apart in
// magnitude (their float64 sum rounds), ±Inf and NaN.
func planeValue(r *rand.Rand) float32 {
	switch r.IntN(12) {
	case 0:
		return 0
	case 1:
		return float32(math.Copysign(0, -1))
	case 2:
		return math.Float32frombits(uint32(r.IntN(1 << 23)))
	case 3:
		return float32(r.NormFloat64() * 1e30)
	case 4, 6:
		// about 2⁻³¹ of the normal values: their float64 sums with those
		// need more than 53 bits, so the order of addition rounds them
		return float32(r.NormFloat64() * 5e-10)
	case 5:
		if r.IntN(4) == 0 {
			return float32([]float64{math.Inf(1), math.Inf(-1), math.NaN()}[r.IntN(3)])
		}
	}
	return float32(r.NormFloat64())
}

// samePlanes reports whether the *Planes routines wrote, for planes of hw
// values, exactly (bit for bit) what the per-plane routines write, in F.
func samePlanes[F Float](seed uint64, planes, hw int, relu bool) bool {
	r := rand.New(rand.NewPCG(seed, uint64(planes*64+hw)))
	n := planes * hw
	row := func() []F {
		x := make([]F, n)
		for i := range x {
			x[i] = F(planeValue(r))
		}
		return x
	}
	consts := func() []F {
		c := make([]F, planes)
		for j := range c {
			c[j] = F(r.NormFloat64())
		}
		return c
	}
	x, dy := row(), row()
	a, b, k, q, rr, m := consts(), consts(), consts(), consts(), consts(), consts()
	mu, s0, s1 := make([]float64, planes), make([]float64, planes), make([]float64, planes)
	for j := range mu {
		mu[j], s0[j], s1[j] = r.NormFloat64(), r.NormFloat64(), r.NormFloat64()
	}
	// Bit for bit, except that any NaN is any other: which of two NaNs a sum
	// keeps is the operand order the compiler picks for a commutative add
	// (x86 keeps the first), which Go does not specify.
	same64 := func(x, y float64) bool {
		return math.Float64bits(x) == math.Float64bits(y) || math.IsNaN(x) && math.IsNaN(y)
	}
	sameF := func(x, y F) bool { return same64(float64(x), float64(y)) }
	plane := func(s []F, j int) []F { return s[j*hw : (j+1)*hw] }

	sum, sq := append([]float64(nil), s0...), append([]float64(nil), s1...)
	SumPlanes(sum, x, hw)
	SqDevPlanes(sq, x, hw, mu)
	sg, sgd := append([]float64(nil), s0...), append([]float64(nil), s1...)
	MaskedSumsPlanes(sg, sgd, x, dy, hw, a, b, relu, mu)
	y, dx := make([]F, n), make([]F, n)
	AffinePlanes(y, x, hw, a, b, relu)
	GradPlanes(dx, x, dy, hw, a, b, relu, k, q, rr, m)

	y1, dx1 := make([]F, hw), make([]F, hw)
	for j := 0; j < planes; j++ {
		sg1, sgd1 := MaskedSums(plane(x, j), plane(dy, j), a[j], b[j], relu, mu[j])
		if !same64(sum[j], s0[j]+Sum(plane(x, j))) || !same64(sq[j], s1[j]+SqDev(plane(x, j), mu[j])) ||
			!same64(sg[j], s0[j]+sg1) || !same64(sgd[j], s1[j]+sgd1) {
			return false
		}
		Affine(y1, plane(x, j), a[j], b[j], relu)
		Grad(dx1, plane(x, j), plane(dy, j), a[j], b[j], relu, k[j], q[j], rr[j], m[j])
		for i := range y1 {
			if !sameF(y1[i], plane(y, j)[i]) || !sameF(dx1[i], plane(dx, j)[i]) {
				return false
			}
		}
	}
	return true
}

// TestPlanesArePlaneByPlane: for generated plane sizes (below, at and above
// the assembly's widths of 8 and 16 values, and 1, where the routines run
// the channels side by side) and plane counts (across the sums' blocks of
// 32), the *Planes routines write bit for bit what the routines they are
// named after write plane by plane, in float32 on both paths and in
// float64, with values that include ±0, subnormals, ±Inf, NaN and sums
// whose order decides their rounding (NaN's payload aside).
func TestPlanesArePlaneByPlane(t *testing.T) {
	paths(t, func(t *testing.T) {
		params := gopter.DefaultTestParameters()
		params.MinSuccessfulTests = 300
		p := gopter.NewProperties(params)
		p.Property("float32", prop.ForAll(func(seed uint64, planes, hw int, relu bool) bool {
			return samePlanes[float32](seed, planes, hw, relu)
		}, gen.UInt64(), gen.IntRange(0, 70), gen.IntRange(1, 40), gen.Bool()))
		p.Property("float64", prop.ForAll(func(seed uint64, planes, hw int, relu bool) bool {
			return samePlanes[float64](seed, planes, hw, relu)
		}, gen.UInt64(), gen.IntRange(0, 70), gen.IntRange(1, 20), gen.Bool()))
		p.TestingRun(t)
	})
	// The sizes the networks have (ResNet18's 1, 4, 16, 64 and 256 values a
	// plane), each at a block boundary and past it.
	paths(t, func(t *testing.T) {
		for _, hw := range []int{1, 2, 4, 7, 8, 15, 16, 64, 256} {
			for _, planes := range []int{1, 32, 33, 64, 65} {
				for _, relu := range []bool{false, true} {
					if !samePlanes[float32](7, planes, hw, relu) {
						t.Errorf("float32 %d planes of %d values, relu %v: not the per-plane routines' bits", planes, hw, relu)
					}
				}
			}
		}
	})
}
