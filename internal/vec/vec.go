package vec

import "math"

// Sum returns Σ x[i] in float64.
func Sum(x []float32) float64 {
	n := 0
	var s float64
	if useAsm {
		n = len(x) &^ 15
		if n > 0 {
			s = sumAsm(&x[0], n)
		}
	}
	return s + sumGo(x[n:])
}

// SqDev returns Σ (x[i] − μ)² in float64.
func SqDev(x []float32, mu float64) float64 {
	n := 0
	var s float64
	if useAsm {
		n = len(x) &^ 15
		if n > 0 {
			s = sqDevAsm(&x[0], n, mu)
		}
	}
	return s + sqDevGo(x[n:], mu)
}

// Affine writes y[i] = x[i]·a + b (the product and the sum each rounded to
// float32), replaced by 0 where it is not > 0 when relu is set (NaN too).
func Affine(y, x []float32, a, b float32, relu bool) {
	y = y[:len(x)]
	n := 0
	if useAsm {
		n = len(x) &^ 7
		if n > 0 {
			affineAsm(&y[0], &x[0], n, a, b, relu)
		}
	}
	affineGo(y[n:], x[n:], a, b, relu)
}

// MaskedSums returns Σ g[i] and Σ g[i]·(x[i] − μ) in float64, where g = dy,
// or with relu g[i] = dy[i] where x[i]·a + b > 0 (rounded as in Affine) and
// 0 elsewhere.
func MaskedSums(x, dy []float32, a, b float32, relu bool, mu float64) (sg, sgd float64) {
	dy = dy[:len(x)]
	n := 0
	if useAsm {
		n = len(x) &^ 7
		if n > 0 {
			sg, sgd = maskedSumsAsm(&x[0], &dy[0], n, a, b, relu, mu)
		}
	}
	s, d := maskedSumsGo(x[n:], dy[n:], a, b, relu, mu)
	return sg + s, sgd + d
}

// Grad writes dx[i] = (k·g[i] + q·(x[i] − m)) + r in float32, each
// operation rounded, with g as in MaskedSums.
func Grad(dx, x, dy []float32, a, b float32, relu bool, k, q, r, m float32) {
	dx, dy = dx[:len(x)], dy[:len(x)]
	n := 0
	if useAsm {
		n = len(x) &^ 7
		if n > 0 {
			gradAsm(&dx[0], &x[0], &dy[0], n, a, b, relu, k, q, r, m)
		}
	}
	gradGo(dx[n:], x[n:], dy[n:], a, b, relu, k, q, r, m)
}

func sumGo(x []float32) float64 {
	var s float64
	for _, v := range x {
		s += float64(v)
	}
	return s
}

func sqDevGo(x []float32, mu float64) float64 {
	var s float64
	for _, v := range x {
		d := float64(v) - mu
		s += d * d
	}
	return s
}

// keep returns g where z > 0 and 0 elsewhere (NaN z too), by masking g's
// bits: no branch on the data.
func keep(z, g float32) float32 {
	var m uint32
	if z > 0 {
		m = ^uint32(0)
	}
	return math.Float32frombits(math.Float32bits(g) & m)
}

func affineGo(y, x []float32, a, b float32, relu bool) {
	y = y[:len(x)]
	for i, v := range x {
		z := v*a + b
		if relu {
			z = keep(z, z)
		}
		y[i] = z
	}
}

func maskedSumsGo(x, dy []float32, a, b float32, relu bool, mu float64) (sg, sgd float64) {
	dy = dy[:len(x)]
	for i, v := range x {
		g := dy[i]
		if relu {
			g = keep(v*a+b, g)
		}
		sg += float64(g)
		sgd += float64(g) * (float64(v) - mu)
	}
	return sg, sgd
}

func gradGo(dx, x, dy []float32, a, b float32, relu bool, k, q, r, m float32) {
	dx, dy = dx[:len(x)], dy[:len(x)]
	for i, v := range x {
		g := dy[i]
		if relu {
			g = keep(v*a+b, g)
		}
		dx[i] = k*g + q*(v-m) + r
	}
}
