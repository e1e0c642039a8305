package loss

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/dsp/fourier"
)

// LLP-PVC (Ma et al., "Learning from Label Proportions via Proportional
// Value Classification", ICLR 2026; code TianhaoMa5/ICLR2026_LLP-PVC at
// fe11a00) reads a bag's label proportions as counts: with sigmoid outputs
// p_ic = σ(z_ic), the number K_c of instances of class c in a bag of s
// instances is a Poisson-binomial variable, P(K_c = k) the coefficient of
// z^k in Π_i (1 − p_ic + p_ic z), and the bag's loss is
//
//	L = −Σ_c log P(K_c = k_c),   k_c = PVCCounts(α, s)_c,
//
// averaged over the bags of a minibatch (LLP-PVC.py@fe11a00:365-406, 693).

// PVCEps is the floor of the product's scaled coefficients before the
// logarithm, the authors' --eps default (LLP-PVC.py@fe11a00:891-892): it only
// removes the FFT's tiny negative round-off.
const PVCEps = 1e-30

// PVCExactMax is the largest bag that PVC computes with the exact dynamic
// programme (PoissonBinomialDP) instead of the FFT product: the DP has the
// relative precision of float64 in every coefficient, the FFT an absolute
// error near 1e-16 of the largest.
const PVCExactMax = 64

// PVCCounts converts a bag's proportions into the integer counts k_c the
// likelihood is evaluated at, as proportions_to_counts_exact_vmap
// (LLP-PVC.py@fe11a00:273-294): k = round(α·s), half to even as
// torch.round; the difference s − Σk added to the class of the largest
// proportion (the first of equal ones); clamped to [0, s].
func PVCCounts(dst []int, alpha []float64, s int) {
	sum, j := 0, 0
	for c, a := range alpha {
		dst[c] = int(math.RoundToEven(a * float64(s)))
		sum += dst[c]
		if a > alpha[j] {
			j = c
		}
	}
	dst[j] += s - sum
	for c := range dst {
		dst[c] = min(max(dst[c], 0), s)
	}
}

// PoissonBinomialFFT returns the coefficients of Π_i (1 − p_i + p_i z),
// scaled, and the logarithm of the scale: P(K = k) = coef[k]·exp(logScale).
// It multiplies the polynomials pairwise, level by level, by real FFTs, a
// pad polynomial 1 joining an odd one out, and divides each level by its
// largest coefficient, as coeff_product_fast_norm and
// batch_fft_convolve_one_pass (LLP-PVC.py@fe11a00:300-359), except for the
// scale: theirs counts each level's divisor once, ours once per polynomial
// divided, so that exp(logScale) is the true scale
// (TestPoissonBinomialSumsToOne; the loss, renormalised, is the same). The
// result has 2^⌈log₂ s⌉ + 1 coefficients, those above s being round-off.
func PoissonBinomialFFT(p []float64) (coef []float64, logScale float64) {
	var t pvcTree
	t.forward(p)
	return t.levels[len(t.levels)-1][0], t.logScale
}

// PoissonBinomialDP returns P(K = k), k = 0..s, of Π_i (1 − p_i + p_i z)
// by the dynamic programme of compute_CC_loss_dp_precise
// (LLP-PVC.py@fe11a00:225-235): one factor at a time, each step divided by
// its largest coefficient; coef[k]·exp(logScale) = P(K = k), every
// coefficient to the relative precision of float64 until it underflows.
func PoissonBinomialDP(p []float64) (coef []float64, logScale float64) {
	var d pvcDP
	d.forward(p)
	return d.rows[len(d.rows)-1], d.logScale
}

// PVC is LLP-PVC's loss of a minibatch of bags, a BagObjective on the logits
// (HeadLogits): p = σ(z) in float64, clamped to [tiny, 1] as the authors
// clamp (LLP-PVC.py@fe11a00:384), the per-class count likelihood of every
// bag by PoissonBinomialDP for bags of at most ExactMax instances and by
// PoissonBinomialFFT above, normalised in log space as the authors do
// (logsumexp of the clamped coefficients), L the mean over the bags of
// −Σ_c log P(K_c = k_c). Eps is the coefficients' floor (PVCEps when 0);
// ExactMax < 0 means the FFT for every bag.
type PVC struct {
	Eps      float64
	ExactMax int

	p, dp  []float64
	counts []int
	tree   pvcTree
	dpm    pvcDP
}

// Loss implements BagObjective: out holds the logits.
func (v *PVC) Loss(out []float64, C int, bags []BagRef, grad []float64) (float64, error) {
	if len(bags) == 0 || len(grad) != len(out) {
		return 0, fmt.Errorf("LLP-PVC loss: %d bags, %d outputs and %d gradients", len(bags), len(out), len(grad))
	}
	v.counts = append(v.counts[:0], make([]int, C)...)
	inv := 1 / float64(len(bags))
	var loss float64
	start := 0
	for b, bag := range bags {
		s := len(bag.Indices)
		if len(bag.Proportions) != C || (start+s)*C > len(out) {
			return 0, fmt.Errorf("LLP-PVC loss: bag %d: %d proportions for %d classes, %d instances from %d of %d outputs", b, len(bag.Proportions), C, s, start, len(out)/C)
		}
		PVCCounts(v.counts, bag.Proportions, s)
		for c := 0; c < C; c++ {
			v.p = growF(v.p, s)
			for i := 0; i < s; i++ {
				v.p[i] = pvcProb(out[(start+i)*C+c])
			}
			l, dp := v.classLoss(v.p, v.counts[c])
			loss += inv * l
			for i := 0; i < s; i++ {
				p := v.p[i]
				g := 0.0
				if p > pvcTiny { // the clamp passes the gradient above tiny
					g = dp[i] * p * (1 - p)
				}
				grad[(start+i)*C+c] = inv * g
			}
		}
		start += s
	}
	return loss, bagLossDone("LLP-PVC loss", start, len(out)/C, loss)
}

// classLoss is −log P(K = k) of the probabilities p and its gradient with
// respect to p (valid until the next call).
func (v *PVC) classLoss(p []float64, k int) (float64, []float64) {
	eps := v.Eps
	if eps == 0 {
		eps = PVCEps
	}
	exact := v.ExactMax
	if exact == 0 {
		exact = PVCExactMax
	}
	v.dp = growF(v.dp, len(p))
	if len(p) <= exact {
		return v.dpm.loss(p, k, v.dp)
	}
	return v.tree.loss(p, k, eps, v.dp)
}

// pvcTiny is float64's smallest normal number, the authors' clamp of p
// (torch.finfo(torch.float64).tiny).
const pvcTiny = 2.2250738585072014e-308

// pvcProb is σ(z) clamped to [tiny, 1]: 1 − tiny rounds to 1 in float64.
func pvcProb(z float64) float64 {
	return max(1/(1+math.Exp(-z)), pvcTiny)
}

// logNormalised returns −log(c_k) + log Σ_j c_j of the floored coefficients
// c_j = max(coef_j, floor) and fills g with its gradient with respect to
// coef (zero where the floor acts, as torch's clamp_min).
func logNormalised(coef []float64, k int, floor float64, g []float64) float64 {
	var z float64
	for _, c := range coef {
		z += max(c, floor)
	}
	ck := max(coef[k], floor)
	for j, c := range coef {
		g[j] = 0
		if c >= floor {
			g[j] = 1 / z
		}
	}
	if coef[k] >= floor {
		g[k] -= 1 / ck
	}
	return -math.Log(ck) + math.Log(z)
}

// pvcTree is the FFT product tree with what its gradient needs.
type pvcTree struct {
	levels   [][][]float64 // levels[ℓ][j]: polynomial j of level ℓ (scaled)
	scales   []float64     // scale of level ℓ+1
	logScale float64
	ffts     map[int]*fourier.FFT
	fa, fb   []complex128
	buf      []float64
}

func (t *pvcTree) fft(n int) *fourier.FFT {
	if t.ffts == nil {
		t.ffts = map[int]*fourier.FFT{}
	}
	f, ok := t.ffts[n]
	if !ok {
		f = fourier.NewFFT(n)
		t.ffts[n] = f
	}
	return f
}

// conv returns the linear convolution of a and b (into a new slice) by a
// real FFT of the next power of two, as torch.fft.rfft/irfft with n = N.
func (t *pvcTree) conv(a, b []float64) []float64 {
	n := len(a) + len(b) - 1
	N := 1
	for N < n {
		N <<= 1
	}
	f := t.fft(N)
	t.buf = growF(t.buf, N)
	copy(t.buf, a)
	clear(t.buf[len(a):])
	t.fa = f.Coefficients(growC(t.fa, N/2+1), t.buf)
	copy(t.buf, b)
	clear(t.buf[len(b):])
	t.fb = f.Coefficients(growC(t.fb, N/2+1), t.buf)
	for i := range t.fa {
		t.fa[i] *= t.fb[i]
	}
	f.Sequence(t.buf, t.fa)
	out := make([]float64, n)
	for i := range out {
		out[i] = t.buf[i] / float64(N)
	}
	return out
}

// forward builds the levels of the product of the (1 − p_i, p_i).
func (t *pvcTree) forward(p []float64) {
	leaves := make([][]float64, len(p))
	for i, v := range p {
		leaves[i] = []float64{1 - v, v}
	}
	t.levels = append(t.levels[:0], leaves)
	t.scales = t.scales[:0]
	t.logScale = 0
	cur := 2
	for polys := leaves; len(polys) > 1; {
		if len(polys)%2 == 1 {
			pad := make([]float64, cur)
			pad[0] = 1
			polys = append(polys, pad)
			t.levels[len(t.levels)-1] = polys
		}
		next := make([][]float64, len(polys)/2)
		m := 0.0
		for j := range next {
			next[j] = t.conv(polys[2*j], polys[2*j+1])
			for _, v := range next[j] {
				m = max(m, math.Abs(v))
			}
		}
		m = max(m, 1e-300)
		for _, q := range next {
			for i := range q {
				q[i] /= m
			}
		}
		t.scales = append(t.scales, m)
		// every one of the level's polynomials was divided by m, and all
		// of them multiply into the product: m^len(next). The authors add
		// log m once per level (LLP-PVC.py@fe11a00:352), which their
		// logsumexp renormalisation (:397-399) cancels (PAPER_MAP).
		t.logScale += float64(len(next)) * math.Log(m)
		cur = 2*cur - 1
		t.levels = append(t.levels, next)
		polys = next
	}
}

// loss is −log P(K = k) by the product tree and its gradient with respect
// to p (reverse mode through the levels: the adjoint of c = (a∗b)/m is
// ā = (c̄ ⋆ b)/m, the correlation, with m held fixed as the authors detach
// it).
func (t *pvcTree) loss(p []float64, k int, eps float64, dp []float64) (float64, []float64) {
	t.forward(p)
	top := t.levels[len(t.levels)-1][0]
	g := make([]float64, len(top))
	l := logNormalised(top, k, eps, g)
	adj := [][]float64{g}
	for lv := len(t.levels) - 2; lv >= 0; lv-- {
		polys := t.levels[lv]
		m := t.scales[lv]
		below := make([][]float64, len(polys))
		for j := 0; j < len(polys)/2; j++ { // adj may end with a pad's
			cbar, a, b := adj[j], polys[2*j], polys[2*j+1]
			below[2*j] = t.corr(cbar, b, m)
			below[2*j+1] = t.corr(cbar, a, m)
		}
		adj = below
	}
	for i := range p {
		dp[i] = adj[i][1] - adj[i][0]
	}
	return l, dp
}

// corr returns ā[a] = Σ_t c̄[a+t]·b[t] / m for a < len(b): the adjoint of a
// in c = a∗b (len(a) = len(b)).
func (t *pvcTree) corr(cbar, b []float64, m float64) []float64 {
	rev := make([]float64, len(b))
	for i, v := range b {
		rev[len(b)-1-i] = v
	}
	r := t.conv(cbar, rev)
	out := make([]float64, len(b))
	for a := range out {
		out[a] = r[a+len(b)-1] / m
	}
	return out
}

// pvcDP is the dynamic programme with what its gradient needs.
type pvcDP struct {
	rows     [][]float64 // rows[t]: the scaled distribution of the first t factors
	scales   []float64
	logScale float64
}

// forward runs d_t = (d_{t−1}(1−p_t) + shift(d_{t−1}) p_t) / m_t.
func (d *pvcDP) forward(p []float64) {
	s := len(p)
	d.rows = d.rows[:0]
	d.scales = d.scales[:0]
	d.logScale = 0
	row := make([]float64, s+1)
	row[0] = 1
	d.rows = append(d.rows, row)
	for t, pt := range p {
		prev := d.rows[t]
		next := make([]float64, s+1)
		m := 0.0
		for j := range next {
			v := prev[j] * (1 - pt)
			if j > 0 {
				v += prev[j-1] * pt
			}
			next[j] = v
			m = max(m, math.Abs(v))
		}
		m = max(m, 1e-300)
		for j := range next {
			next[j] /= m
		}
		d.scales = append(d.scales, m)
		d.logScale += math.Log(m)
		d.rows = append(d.rows, next)
	}
}

// loss is −log P(K = k) by the DP (coefficients floored at float64's
// smallest normal, where they underflow) and its gradient with respect to p.
func (d *pvcDP) loss(p []float64, k int, dp []float64) (float64, []float64) {
	d.forward(p)
	s := len(p)
	g := make([]float64, s+1)
	l := logNormalised(d.rows[s], k, pvcTiny, g)
	for t := s; t >= 1; t-- {
		prev, m, pt := d.rows[t-1], d.scales[t-1], p[t-1]
		var pbar float64
		for j := range g {
			g[j] /= m // ū_t
			sh := 0.0
			if j > 0 {
				sh = prev[j-1]
			}
			pbar += g[j] * (sh - prev[j])
		}
		dp[t-1] = pbar
		for j := 0; j <= s; j++ { // d̄_{t−1}[j] = ū[j](1−p) + ū[j+1]p
			v := g[j] * (1 - pt)
			if j+1 <= s {
				v += g[j+1] * pt
			}
			g[j] = v
		}
	}
	return l, dp
}

// growC returns v with length n, reusing its storage.
func growC(v []complex128, n int) []complex128 {
	if cap(v) < n {
		return make([]complex128, n)
	}
	return v[:n]
}
