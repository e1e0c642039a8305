package loss

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Oracles of the exact likelihood, each independent of
// the tilted DP: the sum over all 2^s labellings (s ≤ 12), a DP in log space
// (logaddexp, no tilt, no scaling), a DP in math/big floats (no underflow at
// any exponent), closed forms (the binomial), and finite differences.

// logAddExp is log(e^a + e^b).
func logAddExp(a, b float64) float64 {
	if math.IsInf(a, -1) {
		return b
	}
	if math.IsInf(b, -1) {
		return a
	}
	if a < b {
		a, b = b, a
	}
	return a + math.Log1p(math.Exp(b-a))
}

// logSpaceDP returns log P(K = j), j = 0..s, of independent Bernoulli(σ(z_i))
// by the plain DP in log space: log f_t[j] = logaddexp(log f_{t−1}[j] +
// log(1−p_t), log f_{t−1}[j−1] + log p_t), with log p = −softplus(−z) and
// log(1−p) = −softplus(z).
func logSpaceDP(z []float64) []float64 {
	f, g := make([]float64, 1, len(z)+1), make([]float64, 0, len(z)+1)
	for _, v := range z {
		lp, lq := -softplusF(-v), -softplusF(v)
		g = g[:len(f)+1]
		for j := range g {
			g[j] = math.Inf(-1)
			if j < len(f) {
				g[j] = f[j] + lq
			}
			if j > 0 {
				g[j] = logAddExp(g[j], f[j-1]+lp)
			}
		}
		f, g = g, f
	}
	return f
}

// bigPB returns P(K = k) of independent Bernoulli(σ(z_i)) by the DP in
// math/big floats of 128 bits (exponents of any size), and its natural
// logarithm.
func bigPB(z []float64, k int) float64 {
	const prec = 128
	f := []*big.Float{new(big.Float).SetPrec(prec).SetFloat64(1)}
	for _, v := range z {
		p := new(big.Float).SetPrec(prec).SetFloat64(sigmoid(v))
		q := new(big.Float).SetPrec(prec).SetFloat64(sigmoid(-v))
		g := make([]*big.Float, min(len(f)+1, k+1))
		for j := range g {
			g[j] = new(big.Float).SetPrec(prec)
			if j < len(f) {
				g[j].Mul(f[j], q)
			}
			if j > 0 {
				g[j].Add(g[j], new(big.Float).SetPrec(prec).Mul(f[j-1], p))
			}
		}
		f = g
	}
	if k >= len(f) {
		return math.Inf(-1)
	}
	return bigLog(f[k])
}

// bigLog is the natural logarithm of a positive big.Float.
func bigLog(x *big.Float) float64 {
	mant := new(big.Float)
	exp := x.MantExp(mant)
	m, _ := mant.Float64()
	return math.Log(m) + float64(exp)*math.Ln2
}

// TestPoissonBinomialLogProbEqualsBruteForce: for bags of 1..12 with logits
// of spread up to 30 and every count k in 0..s (and −1, s+1: −Inf), log P(K
// = k) is the logarithm of the sum over all 2^s labellings to 1e-12, and
// every posterior π_t the sum over the labellings with y_t = 1 divided by
// it, to 1e-12.
func TestPoissonBinomialLogProbEqualsBruteForce(t *testing.T) {
	props := gopter.NewProperties(propParams(200))
	props.Property("exact = brute force", prop.ForAll(func(seed uint64, s int, spread float64) bool {
		r := rand.New(rand.NewPCG(seed, 50))
		z := make([]float64, s)
		for i := range z {
			z[i] = spread*r.NormFloat64() + 2*r.NormFloat64()
		}
		post := make([]float64, s)
		if !math.IsInf(PoissonBinomialLogProb(z, -1, post), -1) || !math.IsInf(PoissonBinomialLogProb(z, s+1, nil), -1) {
			return false
		}
		for k := 0; k <= s; k++ {
			var P float64
			pos := make([]float64, s)
			for code := 0; code < 1<<s; code++ {
				w, n := 1.0, 0
				for i, v := range z {
					if code>>i&1 == 1 {
						w *= sigmoid(v)
						n++
					} else {
						w *= sigmoid(-v)
					}
				}
				if n != k {
					continue
				}
				P += w
				for i := range z {
					if code>>i&1 == 1 {
						pos[i] += w
					}
				}
			}
			got := PoissonBinomialLogProb(z, k, post)
			if math.Abs(got-math.Log(P)) > 1e-12*math.Max(1, math.Abs(got)) {
				t.Logf("s %d k %d: %.17g, brute force %.17g", s, k, got, math.Log(P))
				return false
			}
			for i := range z {
				if math.Abs(post[i]-pos[i]/P) > 1e-12 {
					t.Logf("s %d k %d: π_%d %.17g, brute force %.17g", s, k, i, post[i], pos[i]/P)
					return false
				}
			}
		}
		return true
	}, gen.UInt64(), gen.IntRange(1, 12), gen.Float64Range(0, 30)))
	props.TestingRun(t)
}

// farBag is a generated bag for the far-from-target properties: s logits
// N(μ, σ²) and a count k placed dev standard deviations of K from its mean
// (clamped to 0..s), so most targets lie far out where the FFT and the
// rescaled DP floor.
type farBag struct {
	z       []float64
	k       int
	sdsAway float64
}

func genFarBag(seed uint64, s int, dev float64) farBag {
	r := rand.New(rand.NewPCG(seed, 51))
	mu, sigma := 8*r.Float64()-4, 3*r.Float64()
	z := make([]float64, s)
	var mean, v float64
	for i := range z {
		z[i] = mu + sigma*r.NormFloat64()
		p := sigmoid(z[i])
		mean += p
		v += p * (1 - p)
	}
	sd := math.Sqrt(v)
	k := min(max(int(math.Round(mean+dev*sd)), 0), s)
	return farBag{z: z, k: k, sdsAway: (float64(k) - mean) / sd}
}

// TestPoissonBinomialLogProbFarFromTarget: bags of 1..2048 instances,
// targets up to 60 standard deviations from the mean count (every bag's
// distance logged): log P(K = k) equals the plain log-space DP's to
// 1e-15·s relative (the log-space DP's own round-off grows with s; the
// largest seen is 6e-17·s), and for
// three instances t the gradient σ(z_t) − π_t of −log P equals the
// log-space DP's p_t·P_{−t}(k−1)/P(k) (the bag without t) to 1e-9 and the
// central finite difference of the exact loss to 1e-6·max(1, |L|).
func TestPoissonBinomialLogProbFarFromTarget(t *testing.T) {
	props := gopter.NewProperties(propParams(40))
	props.Property("exact = log-space DP far out", prop.ForAll(func(seed uint64, s int, dev float64) bool {
		b := genFarBag(seed, s, dev)
		post := make([]float64, s)
		got := PoissonBinomialLogProb(b.z, b.k, post)
		ls := logSpaceDP(b.z)
		if math.Abs(got-ls[b.k]) > 1e-15*float64(s)*math.Max(1, math.Abs(got)) {
			t.Logf("s %d k %d (%.1f sd): exact %.17g, log-space DP %.17g", s, b.k, b.sdsAway, got, ls[b.k])
			return false
		}
		r := rand.New(rand.NewPCG(seed, 52))
		for n := 0; n < 3; n++ {
			i := r.IntN(s)
			without := logSpaceDP(append(append([]float64(nil), b.z[:i]...), b.z[i+1:]...))
			want := 0.0
			if b.k >= 1 {
				want = math.Exp(-softplusF(-b.z[i]) + without[b.k-1] - ls[b.k])
			}
			if math.Abs(post[i]-want) > 1e-9 {
				t.Logf("s %d k %d (%.1f sd): π_%d %.17g, log-space DP %.17g", s, b.k, b.sdsAway, i, post[i], want)
				return false
			}
			const h = 1e-5
			zi := b.z[i]
			b.z[i] = zi + h
			lp := -PoissonBinomialLogProb(b.z, b.k, nil)
			b.z[i] = zi - h
			lm := -PoissonBinomialLogProb(b.z, b.k, nil)
			b.z[i] = zi
			fd := (lp - lm) / (2 * h)
			if g := sigmoid(zi) - post[i]; math.Abs(g-fd) > 1e-6*math.Max(1, math.Abs(got)) {
				t.Logf("s %d k %d (%.1f sd): gradient %.12g, finite difference %.12g", s, b.k, b.sdsAway, g, fd)
				return false
			}
		}
		return true
	}, gen.UInt64(), gen.IntRange(1, 2048), gen.Float64Range(-60, 60)))
	props.TestingRun(t)
}

// TestPoissonBinomialLogProbBigFloat: the exact log-likelihood against a DP
// in 128-bit big floats, whose exponent never underflows, on bags of 2048
// with targets 10 to 60 standard deviations out on either side, to 1e-13
// relative.
func TestPoissonBinomialLogProbBigFloat(t *testing.T) {
	for i, dev := range []float64{-60, -10, 15, 60} {
		b := genFarBag(uint64(100+i), 2048, dev)
		got := PoissonBinomialLogProb(b.z, b.k, nil)
		want := bigPB(b.z, b.k)
		assert.LessOrEqual(t, math.Abs(got-want), 1e-13*math.Max(1, math.Abs(want)), "k %d (%.1f sd): exact %.17g, big-float DP %.17g", b.k, b.sdsAway, got, want)
	}
}

// TestPVCExactPinsTheDPFloor: a bag of 2048 instances, every sigmoid at
// 1/10 (the authors' starting bias −log 9 with 10 classes), a count of
// 1300 (≈ 81 standard deviations out): the exact loss is the binomial's
// −log C(2048,1300)·0.1^1300·0.9^748 = 1731.92396208… (lgamma; to 1e-11
// relative), while the rescaled DP ("fft" variant, DP for every bag)
// floors at 711.924… (float64's smallest normal below the largest
// coefficient, plus the log of their sum) and the FFT product at its 1e-30
// floor: the DP's floor is pinned so that a change in it shows. Both count
// the term as Tiny, only the "fft" variant as Floored; its RawLoss is the
// exact value. (The 1281.2 against 2318.8 came from a network's
// probabilities, not recorded; this case has a closed form.)
func TestPVCExactPinsTheDPFloor(t *testing.T) {
	const s, k = 2048, 1300
	z := make([]float64, s)
	for i := range z {
		z[i] = -math.Log(9)
	}
	lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
	want := -(lg(s+1) - lg(k+1) - lg(s-k+1) + k*math.Log(0.1) + (s-k)*math.Log(0.9))
	require.InDelta(t, 1731.9239620807, want, 1e-9)
	bag := BagRef{Indices: make([]int, s), Proportions: []float64{float64(k) / s, 1 - float64(k)/s}}
	out := make([]float64, 2*s) // class 1 at its mean count 748: no floor
	one := make([]float64, s)
	for i := 0; i < s; i++ {
		out[2*i] = z[i]
		one[i] = math.Log(748.0 / 1300)
		out[2*i+1] = one[i]
	}
	classOne := -PoissonBinomialLogProb(one, s-k, nil)
	for _, c := range []struct {
		name          string
		v             *PVC
		want          float64
		tol           float64
		floored, tiny int
	}{
		{"exact", &PVC{}, want, 1e-11, 0, 1},
		{"dp", &PVC{Likelihood: PVCFFT, DPMax: 1 << 20}, 711.92410489377, 1e-12, 1, 1},
		{"fft", &PVC{Likelihood: PVCFFT, DPMax: -1}, -math.Log(PVCEps), 1e-3, 1, 1},
	} {
		grad := make([]float64, len(out))
		l, err := c.v.Loss(out, 2, []BagRef{bag}, grad)
		require.NoError(t, err, c.name)
		got := l - classOne  // class 0's term
		if c.name == "fft" { // floored at eps: −log(eps) + log Σ_j coef_j
			assert.Greater(t, got, c.want, c.name)
			assert.Less(t, got, c.want+20, c.name)
		} else {
			assert.InDelta(t, c.want, got, c.tol*c.want, "%s: class 0's loss %.15g", c.name, got)
		}
		d := c.v.Diagnostics()
		assert.Equal(t, BagDiagnostics{Calls: 1, Loss: l, RawLoss: d.RawLoss, ReferenceLoss: d.ReferenceLoss, Terms: 2, Floored: c.floored, Tiny: c.tiny}, d, c.name) // ReferenceLoss: TestPVCReferenceLoss
		assert.InDelta(t, want+classOne, d.RawLoss, 1e-11*want, "%s: the raw loss is the exact one", c.name)
	}
}

// TestPVCExactMinibatchWeights: the exact variant's loss of a minibatch of
// bags of unequal sizes is Σ_b (s_b/n)·L_b, L_b = −Σ_c log P(K_bc = k_bc)
// the bag's own loss (PVC on the bag alone, and PoissonBinomialLogProb), its
// gradient the same weights times each bag's own (the authors'
// compute_CC_loss_fft_precise_batched_varlen, PAPER_MAP); the "fft" variant
// keeps the plain mean Σ_b L_b/B of the cells trained before it. Any other
// rule fails: the bags have sizes 1, 7 and 40.
func TestPVCExactMinibatchWeights(t *testing.T) {
	props := gopter.NewProperties(propParams(30))
	props.Property("L = Σ w_b L_b", prop.ForAll(func(seed uint64) bool {
		r := rand.New(rand.NewPCG(seed, 53))
		const C = 3
		sizes := []int{1, 7, 40}
		var bags []BagRef
		var out []float64
		for _, s := range sizes {
			alpha := []float64{r.Float64(), r.Float64(), r.Float64()}
			sum := alpha[0] + alpha[1] + alpha[2]
			for c := range alpha {
				alpha[c] = math.Round(alpha[c]/sum*1000) / 1000 // a user's rounded floats
			}
			bags = append(bags, BagRef{Indices: make([]int, s), Proportions: alpha})
			for i := 0; i < s*C; i++ {
				out = append(out, 3*r.NormFloat64())
			}
		}
		for _, lik := range []PVCLikelihood{PVCExact, PVCFFT} {
			grad := make([]float64, len(out))
			l, err := (&PVC{Likelihood: lik}).Loss(out, C, bags, grad)
			if err != nil {
				return false
			}
			want, start := 0.0, 0
			for b, bag := range bags {
				s := sizes[b]
				g := make([]float64, s*C)
				lb, err := (&PVC{Likelihood: lik}).Loss(out[start*C:(start+s)*C], C, []BagRef{bag}, g)
				if err != nil {
					return false
				}
				if lik == PVCExact { // a bag alone is its −Σ_c log P(K_c = k_c)
					counts, own := make([]int, C), 0.0
					PVCCounts(counts, bag.Proportions, s)
					for c := 0; c < C; c++ {
						col := make([]float64, s)
						for i := range col {
							col[i] = out[(start+i)*C+c]
						}
						own -= PoissonBinomialLogProb(col, counts[c], nil)
					}
					if math.Abs(lb-own) > 1e-12*math.Max(1, own) {
						t.Logf("bag of %d alone: %.17g, its likelihood %.17g", s, lb, own)
						return false
					}
				}
				w := float64(s) / 48
				if lik == PVCFFT {
					w = 1.0 / 3
				}
				want += w * lb
				for i := range g {
					if math.Abs(grad[start*C+i]-w*g[i]) > 1e-15 {
						return false
					}
				}
				start += s
			}
			if math.Abs(l-want) > 1e-12*math.Max(1, want) {
				t.Logf("%s: %.17g, Σ w_b L_b %.17g", lik, l, want)
				return false
			}
		}
		return true
	}, gen.UInt64()))
	props.TestingRun(t)
}

// TestPVCLikelihoodNames: the names parse, empty is exact, another is an
// error naming the choices, and PVC refuses it.
func TestPVCLikelihoodNames(t *testing.T) {
	for in, want := range map[string]PVCLikelihood{"": PVCExact, "exact": PVCExact, "fft": PVCFFT} {
		got, err := ParsePVCLikelihood(in)
		require.NoError(t, err)
		assert.Equal(t, want, got)
	}
	_, err := ParsePVCLikelihood("dp")
	assert.ErrorContains(t, err, "want exact or fft")
	var l PVCLikelihood
	assert.ErrorContains(t, l.UnmarshalText([]byte("dp")), "want exact or fft", "where a spec enters")
}

// TestPVCFFTFloorIsTheRoundOff: the FFT product's round-off, measured
// against the rescaled DP (every coefficient to float64's relative
// precision) on bags of 65..2048 with logits of spread up to 6, stays below
// a fifth of PVCFFTFloor relative to the largest coefficient (the largest
// seen: 1.1e-14 at 2048), so that a coefficient counted above the floor
// carries at least a few correct digits and one below it may be noise.
func TestPVCFFTFloorIsTheRoundOff(t *testing.T) {
	props := gopter.NewProperties(propParams(12))
	props.Property("|FFT − DP| ≤ floor/5 of the largest", prop.ForAll(func(seed uint64, s int, spread float64) bool {
		p := genProbs(rand.New(rand.NewPCG(seed, 54)), s, spread)
		fc, _ := PoissonBinomialFFT(p)
		dc, _ := PoissonBinomialDP(p)
		fm, dm := 0.0, 0.0
		for k := 0; k <= s; k++ {
			fm, dm = max(fm, math.Abs(fc[k])), max(dm, dc[k])
		}
		for k := 0; k <= s; k++ {
			if e := math.Abs(fc[k]/fm - dc[k]/dm); e > PVCFFTFloor/5 {
				t.Logf("s %d k %d: round-off %g of the largest", s, k, e)
				return false
			}
		}
		return true
	}, gen.UInt64(), gen.IntRange(65, 2048), gen.Float64Range(0.5, 6)))
	props.TestingRun(t)
}
