package loss

import (
	"math"
	"testing"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/internal/testutil"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// authorsDisLoss transcribes the authors' compute_dis_loss
// (llpganlib/train_fun.py@1d0cbc5:29-55) on the logits of B bags of m real
// instances each (zr, B·m×C, bag after bag), of the generated images (zf,
// n_f×C) and the bags' proportions (B×C), in float64. It returns the three
// terms: the "lower bound of kl" (`:37-41`), the real term (`:44-48`) and
// the fake term (`:50-54`).
func authorsDisLoss(zr, zf, props []float64, B, m, C int) (kl, real, fake float64) {
	const eps = 1e-8
	clamp := func(x float64) float64 { return math.Min(math.Max(x, eps), 1-eps) }
	n, nf := B*m, len(zf)/C
	for k := 0; k < B; k++ {
		var s float64
		for c := 0; c < C; c++ {
			var avg float64 // avg_log_prop: the bag's mean of log clamp(softmax_C)
			for j := 0; j < m; j++ {
				z := zr[(k*m+j)*C : (k*m+j+1)*C]
				var den float64
				for _, v := range z {
					den += math.Exp(v)
				}
				avg += math.Log(clamp(math.Exp(z[c])/den)) / float64(m)
			}
			s += -props[k*C+c] * avg
		}
		kl += -s / float64(B) // -torch.sum(-props * avg_log_prop, dim=-1).mean()
	}
	sm := func(z []float64) float64 { // softmax of (z, 0), last entry
		den := 1.0
		for _, v := range z {
			den += math.Exp(v)
		}
		return 1 / den
	}
	for j := 0; j < n; j++ {
		real -= math.Log(clamp(1-sm(zr[j*C:(j+1)*C]))) / float64(n)
	}
	for j := 0; j < nf; j++ {
		fake -= math.Log(clamp(sm(zf[j*C:(j+1)*C]))) / float64(nf)
	}
	return kl, real, fake
}

// TestAuthorsLLPGANLossesAgainstTranscription pins what PAPER_MAP says of
// the authors' LLPGAN losses against a transcription of their functions
// (rows G3 and G4 of "Paper vs original code", LLPGAN): with one bag per
// minibatch (the paper's B = 1) their real and fake terms are the
// appendix's first two terms, and their third term is
// +Σ_c γ̂(c)·(1/m)Σ_j log softmax_C(z_j)_c, where the appendix's is
// −(1/(BC))Σ_c γ̂(c)(1/m)Σ_j log f_c(X_j) with the (C+1)-way f: the sign
// flipped, a C-way softmax, no 1/C. With B = 2 bags their first term is the
// appendix's divided by B (a mean over all instances, not Σ_k 1/m_k).
// Their generator loss, torch's mse_loss of the paired features, is the
// appendix's L_G divided by the feature dimension.
func TestAuthorsLLPGANLossesAgainstTranscription(t *testing.T) {
	const C, m, F = 3, 4, 5
	for _, B := range []int{1, 2} {
		g := gorgonia.NewGraph()
		r := rng.New(int64(B), "llpgan-authors")
		n := B * m
		zr := testutil.RandInput(g, tensor.Float64, "zr", tensor.Shape{n, C}, r)
		zf := testutil.RandInput(g, tensor.Float64, "zf", tensor.Shape{n, C}, r)
		fr := testutil.RandInput(g, tensor.Float64, "fr", tensor.Shape{n, F}, r)
		ff := testutil.RandInput(g, tensor.Float64, "ff", tensor.Shape{n, F}, r)
		avgV := make([]float64, B*n)
		for k := 0; k < B; k++ {
			for j := 0; j < m; j++ {
				avgV[k*n+k*m+j] = 1 / float64(m)
			}
		}
		propsV := []float64{0.6, 0.1, 0.3, 0, 0.25, 0.75}[:B*C]
		avg := gorgonia.NewMatrix(g, tensor.Float64, gorgonia.WithShape(B, n), gorgonia.WithName("avg"), gorgonia.WithValue(tensor.New(tensor.WithShape(B, n), tensor.WithBacking(avgV))))
		props := gorgonia.NewMatrix(g, tensor.Float64, gorgonia.WithShape(B, C), gorgonia.WithName("props"), gorgonia.WithValue(tensor.New(tensor.WithShape(B, C), tensor.WithBacking(propsV))))
		ld, err := LLPGANDiscriminatorLoss(zr, zf, avg, props)
		require.NoError(t, err)
		lg, err := LLPGANGeneratorLoss(fr, ff)
		require.NoError(t, err)
		vm := gorgonia.NewTapeMachine(g)
		require.NoError(t, vm.RunAll())
		vm.Close()
		zrv, zfv := testutil.Values(t, zr), testutil.Values(t, zf)
		ours := testutil.Values(t, ld)[0]

		// The appendix's terms, from an explicit (C+1)-way softmax.
		var t1, t2, t3 float64
		for k := 0; k < B; k++ {
			for j := 0; j < m; j++ {
				z := zrv[(k*m+j)*C : (k*m+j+1)*C]
				den := 1.0
				for _, v := range z {
					den += math.Exp(v)
				}
				t1 -= math.Log(1-1/den) / float64(m)
				for c := 0; c < C; c++ {
					t3 -= propsV[k*C+c] / float64(m) * math.Log(math.Exp(z[c])/den) / float64(B*C)
				}
			}
		}
		for j := 0; j < n; j++ {
			den := 1.0
			for _, v := range zfv[j*C : (j+1)*C] {
				den += math.Exp(v)
			}
			t2 -= math.Log(1/den) / float64(n)
		}
		require.InDelta(t, t1+t2+t3, ours, 1e-12, "B = %d: our loss is not the appendix's", B)

		kl, real, fake := authorsDisLoss(zrv, zfv, propsV, B, m, C)
		assert.InDeltaf(t, t1/float64(B), real, 1e-12, "B = %d: their real term is not the appendix's first term / B", B)
		assert.InDeltaf(t, t2, fake, 1e-12, "B = %d: their fake term is not the appendix's second term", B)
		// Their third term: +Σ_c γ̂(c) mean_j log softmax_C, bag-averaged.
		var want float64
		for k := 0; k < B; k++ {
			for c := 0; c < C; c++ {
				var mean float64
				for j := 0; j < m; j++ {
					z := zrv[(k*m+j)*C : (k*m+j+1)*C]
					var den float64
					for _, v := range z {
						den += math.Exp(v)
					}
					mean += (z[c] - math.Log(den)) / float64(m)
				}
				want += propsV[k*C+c] * mean / float64(B)
			}
		}
		assert.InDeltaf(t, want, kl, 1e-12, "B = %d: their third term", B)
		assert.Lessf(t, kl, 0.0, "B = %d: their third term is a log-probability sum (≤ 0), minimised by pushing γ̂'s classes down", B)
		assert.Greaterf(t, t3, 0.0, "B = %d: the appendix's third term is a cross-entropy (≥ 0)", B)
		if B == 1 {
			assert.InDelta(t, t1, real, 1e-12, "B = 1: the first terms agree")
		} else {
			assert.Greater(t, math.Abs(t1-real), 1e-3, "B = 2: the first terms must differ by the factor B")
		}

		// Generator: mse_loss(fake_features, true_features) = L_G / F.
		fv, ffv := testutil.Values(t, fr), testutil.Values(t, ff)
		var mse float64
		for i := range fv {
			d := ffv[i] - fv[i]
			mse += d * d / float64(len(fv))
		}
		assert.InDeltaf(t, testutil.Values(t, lg)[0]/F, mse, 1e-12, "B = %d: their mse_loss is not L_G/F", B)
	}
}
