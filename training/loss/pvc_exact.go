package loss

import "math"

// The exact likelihood of LLP-PVC's counts. K is the
// number of successes of s independent Bernoulli(σ(z_i)) (a Poisson-binomial
// count). The FFT product and the rescaled DP hold P(K = j) relative to the
// largest coefficient, so a target k many standard deviations from the mean
// lies below their floor (float64's round-off of the largest, or its
// smallest normal) and its loss and gradient are noise. Here k is brought to
// the mean first, by exponential tilting: shifting every logit by θ,
//
//	P_z(K = k) = e^{−θk} · Π_i (1 + e^{z_i+θ}) / (1 + e^{z_i}) · P_{z+θ}(K = k),
//
// exact for any θ (multiply the generating function Π_i (1 − p_i + p_i x)
// by e^{θ·j} coefficient-wise); with θ solving Σ_i σ(z_i + θ) = k the tilted
// count has its mean at k, hence its mode (Darroch, 1964), so P_{z+θ}(K = k)
// ≥ 1/(s+1) and the plain DP computes it to float64's relative precision
// (every term non-negative). The logarithm of the prefactor is a sum of
// softplus terms, exact in float64 whatever the target.
//
// The gradient needs no logarithm either: with p_t = σ(z_t),
//
//	∂/∂z_t [−log P(K = k)] = p_t − π_t,   π_t = P(y_t = 1 | K = k) = p_t·P_{−t}(k−1) / P(K = k),
//
// P_{−t} the count without instance t, and the posterior π_t is the same
// under every tilt (the tilt's e^{θK} is constant given K = k). π_t comes
// from a forward and a backward pass of the tilted DP, each restricted to
// the counts from which k can still be reached (O(s·min(k, s−k)) a class and
// bag), as π_t = q_t·A_t / (q_t·A_t + (1−q_t)·B_t) with A_t =
// P_{−t}(k−1), B_t = P_{−t}(k) under the tilt: ratios, so neither pass
// needs its scale.

// PoissonBinomialLogProb returns log P(K = k) of the count K of successes of
// independent Bernoulli(σ(z_i)), exactly in float64 at any k in 0..len(z)
// (−Inf outside), by the tilted DP above; when post is not nil (len(z)
// values) it is filled with the posteriors π_i = P(y_i = 1 | K = k), so that
// ∂/∂z_i [−log P(K = k)] = σ(z_i) − π_i.
func PoissonBinomialLogProb(z []float64, k int, post []float64) float64 {
	var e pbExact
	return e.logProb(z, k, post)
}

// pbExact holds the buffers of the exact likelihood, reused across calls.
type pbExact struct {
	q, qm    []float64 // σ(z+θ), σ(−z−θ)
	fwd      []float64 // the forward rows' bands, row t from off[t]
	off, lo  []int     // row t's first slot in fwd, and its first count
	bwd, nxt []float64 // the backward row, and the next
}

// pbRescale is the size below which a DP row is multiplied back to 1: with
// the tilt no row of a finite input falls below it (the band of row t holds
// at least P(K = k)), so it only guards the worst case of a tilt stopped
// early.
const pbRescale = 0x1p-500

// logProb implements PoissonBinomialLogProb.
func (e *pbExact) logProb(z []float64, k int, post []float64) float64 {
	s := len(z)
	if k < 0 || k > s {
		if post != nil {
			clear(post)
		}
		return math.Inf(-1)
	}
	if k == 0 || k == s { // P = Π(1−p_i) or Π p_i: no tilt needed, π_i = 0 or 1
		sign, pi := 1.0, 0.0
		if k == s {
			sign, pi = -1, 1
		}
		var l float64
		for i, v := range z {
			l -= softplusF(sign * v)
			if post != nil {
				post[i] = pi
			}
		}
		return l
	}
	theta := pbTilt(z, k)
	e.q, e.qm = growF(e.q, s), growF(e.qm, s)
	logC := -theta * float64(k)
	for i, v := range z {
		e.q[i], e.qm[i] = sigmoid(v+theta), sigmoid(-v-theta)
		logC += softplusF(v+theta) - softplusF(v)
	}
	logPk := e.forward(s, k)
	if post != nil {
		e.backward(s, k, post)
	}
	return logC + logPk
}

// band returns the counts j of the first t factors from which k can still
// be reached with the s − t left: max(0, k−(s−t)) ≤ j ≤ min(t, k).
func band(t, s, k int) (lo, hi int) { return max(0, k-(s-t)), min(t, k) }

// forward runs the tilted DP f_t[j] = f_{t−1}[j]·(1−q_t) + f_{t−1}[j−1]·q_t
// over the bands, keeping every row for the backward pass, and returns
// log f_s[k] (with the rows' rescalings).
func (e *pbExact) forward(s, k int) float64 {
	e.off, e.lo = growI(e.off, s+2), growI(e.lo, s+1)
	total := 0
	for t := 0; t <= s; t++ {
		lo, hi := band(t, s, k)
		e.off[t], e.lo[t] = total, lo
		total += hi - lo + 1
	}
	e.off[s+1] = total
	e.fwd = growF(e.fwd, total)
	e.fwd[0] = 1
	var logScale float64
	for t := 1; t <= s; t++ {
		prev := e.fwd[e.off[t-1]:e.off[t]]
		row := e.fwd[e.off[t]:e.off[t+1]]
		if sum := convolveBand(row, e.lo[t], prev, e.lo[t-1], e.qm[t-1], e.q[t-1]); sum < pbRescale && sum > 0 {
			for i := range row {
				row[i] /= sum
			}
			logScale += math.Log(sum)
		}
	}
	return math.Log(e.fwd[e.off[s]]) + logScale
}

// convolveBand sets row[i] = prev(lo+i)·a + prev(lo+i−1)·b, prev(j) being
// prev[j−plo] on prev's band and 0 off it, and returns the row's sum. The
// row's band starts at plo or plo+1 and ends at the end of prev's or one
// after: only its ends miss a term.
func convolveBand(row []float64, lo int, prev []float64, plo int, a, b float64) float64 {
	phi := plo + len(prev) - 1
	hi := lo + len(row) - 1
	jlo, jhi := max(lo, plo+1), min(hi, phi) // both terms
	var sum float64
	if lo < jlo { // lo = plo: no j−1
		row[0] = prev[lo-plo] * a
		sum += row[0]
	}
	if jlo <= jhi {
		r := row[jlo-lo : jhi-lo+1]
		x := prev[jlo-plo : jhi-plo+1]
		y := prev[jlo-1-plo : jhi-plo]
		for i := range r {
			v := x[i]*a + y[i]*b
			r[i] = v
			sum += v
		}
	}
	if hi > jhi { // hi = phi+1: no j
		row[hi-lo] = prev[hi-1-plo] * b
		sum += row[hi-lo]
	}
	return sum
}

// backward fills post[t−1] = π_t for t = s..1 from the forward rows and the
// backward row b_t[m] = P(factors t+1..s sum to m) on its band
// max(0, k−t) ≤ m ≤ min(s−t, k).
func (e *pbExact) backward(s, k int, post []float64) {
	e.bwd, e.nxt = growF(e.bwd, k+1), growF(e.nxt, k+1)
	b := e.bwd[:1]
	b[0] = 1
	blo := 0 // band of b_s: m = 0
	for t := s; t >= 1; t-- {
		f := e.fwd[e.off[t-1]:e.off[t]]
		q, qm := e.q[t-1], e.qm[t-1]
		// P_{−t}(k−1) = Σ_j f[j]·b[k−1−j] and P_{−t}(k) = Σ_j f[j]·b[k−j]
		A := bandDot(f, e.lo[t-1], b, blo, k-1)
		B := bandDot(f, e.lo[t-1], b, blo, k)
		post[t-1] = q * A / (q*A + qm*B)
		if t == 1 {
			break
		}
		// b_{t−1}[m] = b_t[m]·(1−q_t) + b_t[m−1]·q_t on the band of t−1
		nlo, nhi := max(0, k-(t-1)), min(s-(t-1), k)
		next := e.nxt[:nhi-nlo+1]
		if sum := convolveBand(next, nlo, b, blo, qm, q); sum < pbRescale && sum > 0 {
			for i := range next {
				next[i] /= sum
			}
		}
		e.bwd, e.nxt = e.nxt, e.bwd
		b, blo = next, nlo
	}
}

// bandDot returns Σ_j f(j)·b(n−j) over the j where both are on their bands
// (f(j) = f[j−flo], b(m) = b[m−blo]).
func bandDot(f []float64, flo int, b []float64, blo, n int) float64 {
	// j in [flo, flo+len(f)−1] and n−j in [blo, blo+len(b)−1]
	jlo := max(flo, n-(blo+len(b)-1))
	jhi := min(flo+len(f)-1, n-blo)
	var sum float64
	for j := jlo; j <= jhi; j++ {
		sum += f[j-flo] * b[n-j-blo]
	}
	return sum
}

// pbTilt returns a θ with Σ_i σ(z_i + θ) within 1e-6 of k (0 < k < len(z)):
// Newton's method on the increasing mean, safeguarded by bisection on the
// bracket [logit(k/s) − max z, logit(k/s) − min z], where every term is
// at most, or at least, k/s. Any θ gives the exact likelihood; a closer one
// keeps the tilted DP's values nearer 1.
func pbTilt(z []float64, k int) float64 {
	s := len(z)
	zmin, zmax, zsum := math.Inf(1), math.Inf(-1), 0.0
	for _, v := range z {
		zmin, zmax, zsum = min(zmin, v), max(zmax, v), zsum+v
	}
	base := math.Log(float64(k)) - math.Log(float64(s-k))
	lo, hi := base-zmax, base-zmin
	theta := min(max(base-zsum/float64(s), lo), hi)
	for it := 0; it < 200 && hi > lo; it++ {
		f, d := -float64(k), 0.0
		for _, v := range z {
			q, qm := sigmoid(v+theta), sigmoid(-v-theta)
			f += q
			d += q * qm
		}
		if math.Abs(f) <= 1e-6 {
			break
		}
		if f > 0 {
			hi = theta
		} else {
			lo = theta
		}
		next := theta - f/d
		if !(next > lo && next < hi) {
			next = lo + (hi-lo)/2
		}
		if next == theta {
			break
		}
		theta = next
	}
	return theta
}

// sigmoid is σ(x) = 1/(1 + e^{−x}) without overflow.
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// softplusF is log(1 + e^x) without overflow or loss of precision.
func softplusF(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}

// growI returns v with length n, reusing its storage.
func growI(v []int, n int) []int {
	if cap(v) < n {
		return make([]int, n)
	}
	return v[:n]
}
