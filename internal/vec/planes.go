package vec

// The *Planes routines run batch norm's passes over a row of len(s) (or
// len(a)) consecutive planes of hw values each, plane j with its own
// channel's constants: the values one instance holds for a range of
// channels, which lie next to each other in N×C×H×W memory. Batch norm
// walks the batch instance by instance this way, reading memory in order,
// where a walk channel by channel jumps C·H·W values between planes; and
// on the small maps of ResNet18's last stages (4, 1 value a plane) a call
// per plane cost 15–37 ns for a few values (bench/NOTES.md, "Lever 11:
// batch norm instance by instance"). Each routine computes, plane by plane, exactly what the
// routine it is named after computes on that plane: the same operations
// in the same order, so every bit is the same (TestPlanesArePlaneByPlane).
// Planes below the assembly's width (16 values for the sums, 8 for the
// others) run the Go twins' loops inline; wider ones call the per-plane
// routine.

// block is how many planes the sums below the assembly's width run side by
// side.
const block = 32

// SumPlanes adds Sum(x[j·hw:(j+1)·hw]) to s[j] for each plane j < len(s).
func SumPlanes[F Float](s []float64, x []F, hw int) {
	x = x[:len(s)*hw]
	switch {
	case hw == 1:
		for j, v := range x {
			p := 0.0
			p += float64(v)
			s[j] += p
		}
	case hw < 16:
		// A block of planes at a time, value t of each plane in turn: the
		// planes' sums are independent chains the core overlaps, where one
		// plane's few additions wait on each other.
		var p [block]float64
		for j0 := 0; j0 < len(s); j0 += block {
			ps, ss := p[:min(block, len(s)-j0)], s[j0:]
			clear(ps)
			for t := 0; t < hw; t++ {
				for j := range ps {
					ps[j] += float64(x[(j0+j)*hw+t])
				}
			}
			for j, v := range ps {
				ss[j] += v
			}
		}
	default:
		for j := range s {
			s[j] += Sum(x[j*hw : (j+1)*hw])
		}
	}
}

// SqDevPlanes adds SqDev(x[j·hw:(j+1)·hw], mu[j]) to s[j] for each plane j
// < len(s).
func SqDevPlanes[F Float](s []float64, x []F, hw int, mu []float64) {
	x, mu = x[:len(s)*hw], mu[:len(s)]
	switch {
	case hw == 1:
		for j, v := range x {
			p := 0.0
			d := float64(v) - mu[j]
			p += d * d
			s[j] += p
		}
	case hw < 16:
		var p [block]float64
		for j0 := 0; j0 < len(s); j0 += block {
			ps, ss, ms := p[:min(block, len(s)-j0)], s[j0:], mu[j0:]
			clear(ps)
			for t := 0; t < hw; t++ {
				for j := range ps {
					d := float64(x[(j0+j)*hw+t]) - ms[j]
					ps[j] += d * d
				}
			}
			for j, v := range ps {
				ss[j] += v
			}
		}
	default:
		for j := range s {
			s[j] += SqDev(x[j*hw:(j+1)*hw], mu[j])
		}
	}
}

// AffinePlanes writes Affine(y[j·hw:(j+1)·hw], x[j·hw:(j+1)·hw], a[j],
// b[j], relu) for each plane j < len(a).
func AffinePlanes[F Float](y, x []F, hw int, a, b []F, relu bool) {
	n := len(a) * hw
	y, x, b = y[:n], x[:n], b[:len(a)]
	if hw >= 8 {
		for j := range a {
			Affine(y[j*hw:(j+1)*hw], x[j*hw:(j+1)*hw], a[j], b[j], relu)
		}
		return
	}
	if hw == 1 {
		for j, v := range x {
			z := v*a[j] + b[j]
			if relu {
				z = Keep(z, z)
			}
			y[j] = z
		}
		return
	}
	for j, aj := range a {
		bj := b[j]
		ys := y[j*hw : (j+1)*hw]
		for i, v := range x[j*hw : (j+1)*hw] {
			z := v*aj + bj
			if relu {
				z = Keep(z, z)
			}
			ys[i] = z
		}
	}
}

// MaskedSumsPlanes adds MaskedSums(x[j·hw:(j+1)·hw], dy[j·hw:(j+1)·hw],
// a[j], b[j], relu, mu[j]) to (sg[j], sgd[j]) for each plane j < len(a).
func MaskedSumsPlanes[F Float](sg, sgd []float64, x, dy []F, hw int, a, b []F, relu bool, mu []float64) {
	n := len(a) * hw
	x, dy, b, mu, sg, sgd = x[:n], dy[:n], b[:len(a)], mu[:len(a)], sg[:len(a)], sgd[:len(a)]
	if hw >= 8 {
		for j := range a {
			s, d := MaskedSums(x[j*hw:(j+1)*hw], dy[j*hw:(j+1)*hw], a[j], b[j], relu, mu[j])
			sg[j] += s
			sgd[j] += d
		}
		return
	}
	// MaskedSums returns 0 + s and 0 + d here (its assembly's share is 0),
	// which are s and d: sums from +0 are never −0 when rounding to nearest.
	var ps, pd [block]float64
	for j0 := 0; j0 < len(a); j0 += block {
		nb := min(block, len(a)-j0)
		s, d := ps[:nb], pd[:nb]
		clear(s)
		clear(d)
		as, bs, ms := a[j0:j0+nb], b[j0:j0+nb], mu[j0:j0+nb]
		for t := 0; t < hw; t++ {
			for j, aj := range as {
				i := (j0+j)*hw + t
				v, g := x[i], dy[i]
				if relu {
					g = Keep(v*aj+bs[j], g)
				}
				s[j] += float64(g)
				d[j] += float64(g) * (float64(v) - ms[j])
			}
		}
		for j := range s {
			sg[j0+j] += s[j]
			sgd[j0+j] += d[j]
		}
	}
}

// GradPlanes writes Grad(dx[j·hw:(j+1)·hw], x[j·hw:(j+1)·hw],
// dy[j·hw:(j+1)·hw], a[j], b[j], relu, k[j], q[j], r[j], m[j]) for each
// plane j < len(a).
func GradPlanes[F Float](dx, x, dy []F, hw int, a, b []F, relu bool, k, q, r, m []F) {
	n := len(a) * hw
	dx, x, dy, b = dx[:n], x[:n], dy[:n], b[:len(a)]
	k, q, r, m = k[:len(a)], q[:len(a)], r[:len(a)], m[:len(a)]
	if hw >= 8 {
		for j := range a {
			Grad(dx[j*hw:(j+1)*hw], x[j*hw:(j+1)*hw], dy[j*hw:(j+1)*hw], a[j], b[j], relu, k[j], q[j], r[j], m[j])
		}
		return
	}
	if hw == 1 {
		for j, v := range x {
			g := dy[j]
			if relu {
				g = Keep(v*a[j]+b[j], g)
			}
			dx[j] = k[j]*g + q[j]*(v-m[j]) + r[j]
		}
		return
	}
	for j, aj := range a {
		bj, kj, qj, rj, mj := b[j], k[j], q[j], r[j], m[j]
		gs, ds := dy[j*hw:(j+1)*hw], dx[j*hw:(j+1)*hw]
		for i, v := range x[j*hw : (j+1)*hw] {
			g := gs[i]
			if relu {
				g = Keep(v*aj+bj, g)
			}
			ds[i] = kj*g + qj*(v-mj) + rj
		}
	}
}
