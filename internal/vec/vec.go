package vec

import (
	"math"
	"unsafe"
)

// Float is the element type of the rows: float32 rows take the AVX2
// routines where the processor has them, float64 rows (the tests' exact
// path) and tails the Go twins.
type Float interface{ ~float32 | ~float64 }

// Sum returns Σ x[i] in float64.
func Sum[F Float](x []F) float64 {
	n := 0
	var s float64
	if asmFor[F]() {
		n = len(x) &^ 15
		if n > 0 {
			s = sumAsm(&as32(x)[0], n)
		}
	}
	return s + sumGo(x[n:])
}

// SqDev returns Σ (x[i] − μ)² in float64.
func SqDev[F Float](x []F, mu float64) float64 {
	n := 0
	var s float64
	if asmFor[F]() {
		n = len(x) &^ 15
		if n > 0 {
			s = sqDevAsm(&as32(x)[0], n, mu)
		}
	}
	return s + sqDevGo(x[n:], mu)
}

// Affine writes y[i] = x[i]·a + b (the product and the sum each rounded to
// F), replaced by 0 where it is not > 0 when relu is set (NaN too).
func Affine[F Float](y, x []F, a, b F, relu bool) {
	y = y[:len(x)]
	n := 0
	if asmFor[F]() {
		n = len(x) &^ 7
		if n > 0 {
			affineAsm(&as32(y)[0], &as32(x)[0], n, float32(a), float32(b), relu)
		}
	}
	affineGo(y[n:], x[n:], a, b, relu)
}

// MaskedSums returns Σ g[i] and Σ g[i]·(x[i] − μ) in float64, where g = dy,
// or with relu g[i] = dy[i] where x[i]·a + b > 0 (rounded as in Affine) and
// 0 elsewhere.
func MaskedSums[F Float](x, dy []F, a, b F, relu bool, mu float64) (sg, sgd float64) {
	dy = dy[:len(x)]
	n := 0
	if asmFor[F]() {
		n = len(x) &^ 7
		if n > 0 {
			sg, sgd = maskedSumsAsm(&as32(x)[0], &as32(dy)[0], n, float32(a), float32(b), relu, mu)
		}
	}
	s, d := maskedSumsGo(x[n:], dy[n:], a, b, relu, mu)
	return sg + s, sgd + d
}

// Grad writes dx[i] = (k·g[i] + q·(x[i] − m)) + r in F, each operation
// rounded, with g as in MaskedSums.
func Grad[F Float](dx, x, dy []F, a, b F, relu bool, k, q, r, m F) {
	dx, dy = dx[:len(x)], dy[:len(x)]
	n := 0
	if asmFor[F]() {
		n = len(x) &^ 7
		if n > 0 {
			gradAsm(&as32(dx)[0], &as32(x)[0], &as32(dy)[0], n, float32(a), float32(b), relu, float32(k), float32(q), float32(r), float32(m))
		}
	}
	gradGo(dx[n:], x[n:], dy[n:], a, b, relu, k, q, r, m)
}

// Keep returns g where z > 0 and 0 elsewhere (NaN z too), by masking g's
// bits: no branch on the data, whose signs are random in a network (a
// branch mispredicts about half the time).
func Keep[F Float](z, g F) F {
	if is32[F]() {
		var m uint32
		if z > 0 {
			m = ^uint32(0)
		}
		return F(math.Float32frombits(math.Float32bits(float32(g)) & m))
	}
	var m uint64
	if z > 0 {
		m = ^uint64(0)
	}
	return F(math.Float64frombits(math.Float64bits(float64(g)) & m))
}

// is32 reports whether F is float32 (a constant per instantiation).
func is32[F Float]() bool {
	var f F
	return unsafe.Sizeof(f) == 4
}

// asmFor reports whether rows of F take the assembly routines.
func asmFor[F Float]() bool { return is32[F]() && useAsm }

// as32 views a slice of a float32-sized F as []float32 (F's underlying type
// is float32 then), without a copy.
func as32[F Float](s []F) []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

func sumGo[F Float](x []F) float64 {
	var s float64
	for _, v := range x {
		s += float64(v)
	}
	return s
}

func sqDevGo[F Float](x []F, mu float64) float64 {
	var s float64
	for _, v := range x {
		d := float64(v) - mu
		s += d * d
	}
	return s
}

func affineGo[F Float](y, x []F, a, b F, relu bool) {
	y = y[:len(x)]
	for i, v := range x {
		z := v*a + b
		if relu {
			z = Keep(z, z)
		}
		y[i] = z
	}
}

func maskedSumsGo[F Float](x, dy []F, a, b F, relu bool, mu float64) (sg, sgd float64) {
	dy = dy[:len(x)]
	for i, v := range x {
		g := dy[i]
		if relu {
			g = Keep(v*a+b, g)
		}
		sg += float64(g)
		sgd += float64(g) * (float64(v) - mu)
	}
	return sg, sgd
}

func gradGo[F Float](dx, x, dy []F, a, b F, relu bool, k, q, r, m F) {
	dx, dy = dx[:len(x)], dy[:len(x)]
	for i, v := range x {
		g := dy[i]
		if relu {
			g = Keep(v*a+b, g)
		}
		dx[i] = k*g + q*(v-m) + r
	}
}
