package loss

import (
	"fmt"
	"math"
	"runtime"

	"github.com/llpfc/llpfc/internal/choice"
	"github.com/llpfc/llpfc/internal/par"
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
// logarithm in the "fft" variant, the authors' --eps default
// (LLP-PVC.py@fe11a00:891-892): it only removes the FFT's tiny negative
// round-off.
const PVCEps = 1e-30

// PVCDPMax is the largest bag that the "fft" variant computes with the
// rescaled dynamic programme (PoissonBinomialDP) instead of the FFT product,
// as llppvc trained before the exact likelihood: the DP holds every coefficient to the
// relative precision of float64 down to float64's smallest normal times the
// largest, the FFT to an absolute error near 1e-16 of the largest.
const PVCDPMax = 64

// PVCFFTFloor is the precision floor of the FFT product's coefficients,
// relative to the largest: below it a coefficient's round-off can exceed
// the coefficient itself, so its loss and gradient are noise
// (TestPVCFFTFloorIsTheRoundOff measures the round-off of bags up to 2048 at
// under a tenth of it). The rescaled DP's floor is float64's smallest
// normal (its logNormalised clamp).
const PVCFFTFloor = 1e-13

// PVCLikelihood names how PVC computes P(K_c = k_c); the zero value is not
// stated, read as PVCExact.
type PVCLikelihood uint16

const (
	// PVCExact is the exact likelihood of PoissonBinomialLogProb at every
	// bag size and target, and the bags of a minibatch weighted by their
	// sizes, as the authors' compute_CC_loss_fft_precise_batched_varlen
	// (LLP-PVC.py@fe11a00:449-516) averages bags of unequal sizes (the
	// plain mean for equal bags).
	PVCExact PVCLikelihood = iota + 1
	// PVCFFT is what llppvc trained before the exact likelihood, the authors' numerics:
	// the FFT product (PoissonBinomialFFT) with the coefficients floored
	// at Eps, the rescaled DP for bags of at most DPMax, and the plain mean
	// over the minibatch's bags (LLP-PVC.py@fe11a00:412-447).
	PVCFFT
)

var pvcLikelihoods = choice.Set[PVCLikelihood]{What: "LLP-PVC likelihood", Names: []string{"", "exact", "fft"},
	Want: "exact or fft"}

// ParsePVCLikelihood parses a likelihood's name; empty is PVCExact.
func ParsePVCLikelihood(s string) (PVCLikelihood, error) {
	if s == "" {
		return PVCExact, nil
	}
	return pvcLikelihoods.Parse(s)
}

func (l PVCLikelihood) String() string { return pvcLikelihoods.String(l) }

// UnmarshalText parses a likelihood where it enters (a spec, a result, a
// flag); empty is the zero value.
func (l *PVCLikelihood) UnmarshalText(b []byte) error { return pvcLikelihoods.Unmarshal(l, b) }

// MarshalText writes the likelihood's name.
func (l PVCLikelihood) MarshalText() ([]byte, error) { return pvcLikelihoods.Marshal(l) }

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
// (HeadLogits): with the counts k_c = PVCCounts(α, s) of every bag,
//
//	L = Σ_b w_b · (−Σ_c log P(K_bc = k_bc)),
//
// K_bc the Poisson-binomial count of the bag's sigmoids σ(z_ic). Likelihood
// chooses the numerics and the weights w_b (PVCExact, the zero value: the
// exact likelihood, bags weighted by their sizes; PVCFFT: the authors' FFT
// product, the plain mean). Eps (PVCEps when 0) and DPMax (PVCDPMax when
// 0; < 0: the FFT for every bag) are the "fft" variant's: there p = σ(z)
// is clamped to [tiny, 1] as the authors clamp it (LLP-PVC.py@fe11a00:384)
// and the coefficients normalised in log space as the authors do (logsumexp
// of the floored coefficients). The objective runs on the host for every
// back end (KLChunked.GradientOf), its terms in parallel, each on its own
// buffers, summed in order: the same bits for any number of threads. It
// keeps BagDiagnostics (Diagnosed).
type PVC struct {
	Likelihood PVCLikelihood
	Eps        float64
	DPMax      int

	counts []int
	terms  []pvcTerm
	work   []pvcWork
	diag   BagDiagnostics
}

// pvcTerm is one class of one bag: its instances' rows, its count, and
// what its computation gave.
type pvcTerm struct {
	start, s, c, k int
	w              float64
	loss, raw      float64
	floored, tiny  bool
}

// pvcWork is one worker's buffers.
type pvcWork struct {
	exact          pbExact
	tree           pvcTree
	dpm            pvcDP
	z, p, post, dp []float64
}

// Diagnostics implements Diagnosed: the calls, the loss trained and the
// exact one, and the class terms below the numerics' floor (Floored, the
// "fft" variant's only) or below PVCTinyLikelihood (Tiny).
func (v *PVC) Diagnostics() BagDiagnostics { return v.diag }

// ResetDiagnostics implements Diagnosed.
func (v *PVC) ResetDiagnostics() { v.diag = BagDiagnostics{} }

// Head implements BagObjective: the logits.
func (*PVC) Head() Head { return HeadLogits }

// Loss implements BagObjective: out holds the logits.
func (v *PVC) Loss(out []float64, C int, bags []BagRef, grad []float64) (float64, error) {
	lik := v.Likelihood
	if lik == 0 {
		lik = PVCExact
	}
	if len(bags) == 0 || len(grad) != len(out) {
		return 0, fmt.Errorf("LLP-PVC loss: %d bags, %d outputs and %d gradients", len(bags), len(out), len(grad))
	}
	v.counts = growI(v.counts, C)
	v.terms = v.terms[:0]
	start := 0
	for b, bag := range bags {
		s := len(bag.Indices)
		if len(bag.Proportions) != C || s == 0 || (start+s)*C > len(out) {
			return 0, fmt.Errorf("LLP-PVC loss: bag %d: %d proportions for %d classes, %d instances from %d of %d outputs", b, len(bag.Proportions), C, s, start, len(out)/C)
		}
		PVCCounts(v.counts, bag.Proportions, s)
		w := 1 / float64(len(bags)) // the authors' mean (fft)
		if lik == PVCExact {
			w = float64(s) // divided by the instances below
		}
		for c := 0; c < C; c++ {
			v.terms = append(v.terms, pvcTerm{start: start, s: s, c: c, k: v.counts[c], w: w})
		}
		start += s
	}
	if start != len(out)/C {
		return 0, fmt.Errorf("LLP-PVC loss: the bags hold %d instances, the outputs %d", start, len(out)/C)
	}
	if lik == PVCExact {
		for i := range v.terms {
			v.terms[i].w /= float64(start)
		}
	}
	workers := min(runtime.GOMAXPROCS(0), len(v.terms))
	for len(v.work) < workers {
		v.work = append(v.work, pvcWork{})
	}
	par.Chunks(len(v.terms), func(j, worker int) {
		v.term(&v.terms[j], &v.work[worker], lik, out, C, grad)
	})
	var loss, raw, ref float64
	d := v.diag
	for _, t := range v.terms {
		loss += t.w * t.loss
		raw += t.w * t.raw
		ref += t.w * -logBinomialAtMean(t.s, t.k)
		d.Terms++
		if t.floored {
			d.Floored++
		}
		if t.tiny {
			d.Tiny++
		}
	}
	if err := bagLossDone("LLP-PVC loss", start, len(out)/C, loss); err != nil {
		return loss, err
	}
	d.Calls++
	d.Loss += loss
	d.RawLoss += raw
	d.ReferenceLoss += ref
	v.diag = d
	return loss, nil
}

// term computes one class term's loss, its exact loss and its gradient
// (scaled by its weight) in the logits.
func (v *PVC) term(t *pvcTerm, wk *pvcWork, lik PVCLikelihood, out []float64, C int, grad []float64) {
	wk.z = growF(wk.z, t.s)
	for i := range wk.z {
		wk.z[i] = out[(t.start+i)*C+t.c]
	}
	if lik == PVCExact {
		wk.post = growF(wk.post, t.s)
		lp := wk.exact.logProb(wk.z, t.k, wk.post)
		t.loss, t.raw, t.tiny = -lp, -lp, lp < math.Log(PVCTinyLikelihood)
		for i, z := range wk.z {
			grad[(t.start+i)*C+t.c] = t.w * (sigmoid(z) - wk.post[i])
		}
		return
	}
	wk.p = growF(wk.p, t.s)
	for i, z := range wk.z {
		wk.p[i] = pvcProb(z)
	}
	var dp []float64
	t.loss, dp, t.floored = v.classLoss(wk, wk.p, t.k)
	lp := wk.exact.logProb(wk.z, t.k, nil)
	t.raw, t.tiny = -lp, lp < math.Log(PVCTinyLikelihood)
	for i, p := range wk.p {
		g := 0.0
		if p > pvcTiny { // the clamp passes the gradient above tiny
			g = dp[i] * p * (1 - p)
		}
		grad[(t.start+i)*C+t.c] = t.w * g
	}
}

// classLoss is the "fft" variant's −log P(K = k) of the probabilities p, its
// gradient with respect to p (valid until the next call on wk) and whether
// the coefficient at k lies below the numerics' floor.
func (v *PVC) classLoss(wk *pvcWork, p []float64, k int) (float64, []float64, bool) {
	eps := v.Eps
	if eps == 0 {
		eps = PVCEps
	}
	dpMax := v.DPMax
	if dpMax == 0 {
		dpMax = PVCDPMax
	}
	wk.dp = growF(wk.dp, len(p))
	if len(p) <= dpMax {
		l, dp := wk.dpm.loss(p, k, wk.dp)
		return l, dp, wk.dpm.rows[len(p)][k] < pvcTiny
	}
	l, dp := wk.tree.loss(p, k, eps, wk.dp)
	top := wk.tree.levels[len(wk.tree.levels)-1][0]
	m := 0.0
	for _, c := range top {
		m = max(m, math.Abs(c))
	}
	return l, dp, top[k] < PVCFFTFloor*m
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

// logBinomialAtMean is log P(K = k) for K ~ Binomial(s, k/s): the
// likelihood of a class's count when every instance of the bag predicts the
// bag's own proportion k/s — what a predictor that tells no two instances
// apart scores (BagDiagnostics.ReferenceLoss).
func logBinomialAtMean(s, k int) float64 {
	lg := func(n int) float64 { v, _ := math.Lgamma(float64(n + 1)); return v }
	out := lg(s) - lg(k) - lg(s-k)
	p := float64(k) / float64(s)
	if k > 0 {
		out += float64(k) * math.Log(p)
	}
	if k < s {
		out += float64(s-k) * math.Log1p(-p)
	}
	return out
}
