package loss

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEasyLLPDiagnostics, worked by hand: prior (0.6, 0.4), a bag of 2 with
// α = (½, ½) has soft labels 2α − p = (0.4, 0.6), a bag of 3 with α = (1, 0)
// has 3α − 2p = (1.8, −0.8): four soft labels, one negative, from −0.8 to
// 1.8, mean ½, population standard deviation √(4.4/4 − ½²) = 0.92195.
// A call flooded at b above its loss L counts as Flooded with loss 2b − L
// and raw loss L; a call with b below L does not; Reset clears everything.
func TestEasyLLPDiagnostics(t *testing.T) {
	out := []float64{2, -1, 0.5, 0.1, 0.3, -0.2, 1, 1, -1, 0}
	bags := []BagRef{{Indices: []int{0, 1}, Proportions: []float64{0.5, 0.5}}, {Indices: []int{2, 3, 4}, Proportions: []float64{1, 0}}}
	e := &EasyLLP{Prior: []float64{0.6, 0.4}}
	L, err := e.Loss(out, 2, bags, make([]float64, len(out)))
	require.NoError(t, err)
	d := e.Diagnostics()
	assert.Equal(t, 1, d.Calls)
	assert.Equal(t, 0, d.Flooded)
	assert.Equal(t, 4, d.SoftLabels)
	assert.Equal(t, 1, d.SoftNegative)
	assert.InDelta(t, -0.8, d.SoftMin, 1e-15)
	assert.InDelta(t, 1.8, d.SoftMax, 1e-15)
	assert.InDelta(t, 2, d.SoftSum, 1e-15)
	assert.InDelta(t, 0.92195444573, d.SoftStd(), 1e-10)
	assert.Equal(t, L, d.Loss)
	assert.Equal(t, L, d.RawLoss)

	e.Flood = L + 0.5 // below b: reversed
	l2, err := e.Loss(out, 2, bags, make([]float64, len(out)))
	require.NoError(t, err)
	assert.InDelta(t, L+1, l2, 1e-12)
	e.Flood = L - 0.5 // above b: as it is
	l3, err := e.Loss(out, 2, bags, make([]float64, len(out)))
	require.NoError(t, err)
	assert.InDelta(t, L, l3, 1e-12)
	d = e.Diagnostics()
	assert.Equal(t, 3, d.Calls)
	assert.Equal(t, 1, d.Flooded)
	assert.InDelta(t, 1.0/3, d.FloodedShare(), 1e-15)
	assert.InDelta(t, 3*L+1, d.Loss, 1e-12)
	assert.InDelta(t, 3*L, d.RawLoss, 1e-12)
	assert.Equal(t, 12, d.SoftLabels)
	e.ResetDiagnostics()
	assert.Equal(t, BagDiagnostics{}, e.Diagnostics())
	assert.Zero(t, e.Diagnostics().SoftStd())
	assert.Zero(t, e.Diagnostics().FloodedShare())
}

// TestCILossDiagnostics, worked by hand: a bag of two softmax outputs
// (0.5, 0.5) and (0.7, 0.3), mean (0.6, 0.4), proportions (½, ½) and the
// interval [0.55, 0.65] × [0.45, 0.55]: class 0 is inside, class 1 not; the
// loss −½log(½ + ε) − ½log(0.4 + ε) is the raw loss too.
func TestCILossDiagnostics(t *testing.T) {
	l := &CILoss{}
	bag := BagRef{Indices: []int{0, 1}, Proportions: []float64{0.5, 0.5}, Lo: []float64{0.55, 0.45}, Hi: []float64{0.65, 0.55}}
	L, err := l.Loss([]float64{0.5, 0.5, 0.7, 0.3}, 2, []BagRef{bag}, make([]float64, 4))
	require.NoError(t, err)
	want := -0.5*math.Log(0.5+MixBagEps) - 0.5*math.Log(0.4+MixBagEps)
	assert.InDelta(t, want, L, 1e-15)
	assert.Equal(t, BagDiagnostics{Calls: 1, Loss: L, RawLoss: L, Terms: 2, Inside: 1}, l.Diagnostics())
	l.ResetDiagnostics()
	assert.Equal(t, BagDiagnostics{}, l.Diagnostics())
}

// TestPVCDiagnostics, worked by hand: a bag of two instances, every logit 0
// (p = ½), counts (1, 1): P(K = 1) = ½ in each class, loss 2·log 2 in both
// variants, nothing floored or tiny; the second call adds to the first.
func TestPVCDiagnostics(t *testing.T) {
	bag := BagRef{Indices: []int{0, 1}, Proportions: []float64{0.5, 0.5}}
	for _, lik := range []PVCLikelihood{PVCExact, PVCFFT} {
		v := &PVC{Likelihood: lik}
		for n := 1; n <= 2; n++ {
			L, err := v.Loss(make([]float64, 4), 2, []BagRef{bag}, make([]float64, 4))
			require.NoError(t, err)
			assert.InDelta(t, 2*math.Ln2, L, 1e-15, lik)
			d := v.Diagnostics()
			assert.Equal(t, n, d.Calls, lik)
			assert.Equal(t, 2*n, d.Terms, lik)
			assert.Zero(t, d.Floored+d.Tiny, lik)
			assert.InDelta(t, float64(n)*2*math.Ln2, d.Loss, 1e-14, lik)
			assert.InDelta(t, float64(n)*2*math.Ln2, d.RawLoss, 1e-14, lik)
		}
		v.ResetDiagnostics()
		assert.Equal(t, BagDiagnostics{}, v.Diagnostics())
	}
}

// The three newer objectives keep diagnostics.
var _ = []Diagnosed{&PVC{}, &EasyLLP{}, &CILoss{}}

// TestPVCReferenceLoss: the reference loss of LLP-PVC — every
// instance given its bag's own proportion — is −Σ_c log Binomial(k_c; s,
// k_c/s); the binomial is the Poisson-binomial of equal probabilities, so
// PoissonBinomialLogProb at the logits logit(k/s) is its oracle (bags of 1 to
// 300, every count, the ends 0 and s included), and the diagnostics sum it
// weighted as the loss: a minibatch whose outputs are those logits has its
// exact loss equal to its reference loss.
func TestPVCReferenceLoss(t *testing.T) {
	for _, s := range []int{1, 2, 7, 64, 300} {
		for k := 0; k <= s; k++ {
			p := float64(k) / float64(s)
			z := make([]float64, s)
			for i := range z {
				z[i] = math.Log(p) - math.Log1p(-p) // ±Inf at the ends: σ = 0 or 1
			}
			want := PoissonBinomialLogProb(z, k, nil)
			assert.InDelta(t, want, logBinomialAtMean(s, k), 1e-9*math.Max(1, math.Abs(want)), "s %d, k %d", s, k)
		}
	}
	bags := []BagRef{{Indices: []int{0, 1, 2, 3}, Proportions: []float64{0.25, 0.75}}, {Indices: []int{4, 5}, Proportions: []float64{0.5, 0.5}}}
	var out []float64
	for _, b := range bags {
		for range b.Indices {
			for _, a := range b.Proportions {
				out = append(out, math.Log(a)-math.Log1p(-a))
			}
		}
	}
	v := &PVC{}
	l, err := v.Loss(out, 2, bags, make([]float64, len(out)))
	require.NoError(t, err)
	d := v.Diagnostics()
	assert.InDelta(t, l, d.ReferenceLoss, 1e-12)
	assert.InDelta(t, -(4*logBinomialAtMean(4, 1)+4*logBinomialAtMean(4, 3)+2*2*logBinomialAtMean(2, 1))/6, d.ReferenceLoss, 1e-12)
}
