package opencl_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/llpfc/llpfc/internal/opencl"
)

// slicedGeoms are batch norms whose channels are reduced in slices: few
// channels of many values (a 32×32 map of 64 images, two channels), a last
// slice shorter than the others, one channel, and an N×C input of one
// column (HW = 1).
var slicedGeoms = []opencl.BNGeom{
	{N: 64, C: 2, HW: 1024}, {N: 33, C: 3, HW: 257}, {N: 129, C: 1, HW: 100}, {N: 4100, C: 1, HW: 1},
}

// driftInput is bnInput with a drift along each channel's values (4 from
// its first value to its last), so that the slices' means differ and a
// merge that drops the term between them is wrong by far more than
// rounding.
func driftInput(t *testing.T, g opencl.BNGeom) (x, gamma, beta []float32) {
	x, gamma, beta = bnInput(newRNG(t), g)
	m := float64(g.N * g.HW)
	for i := range x {
		n, k := i/(g.C*g.HW), i%g.HW
		x[i] += float32(4 * float64(n*g.HW+k) / m)
	}
	return x, gamma, beta
}

// sliceVarianceRef is the biased variance that merging the slices without
// their means' spread would give: Σ_s M2_s / M, the slices as the library
// cuts them.
func sliceVarianceRef(x []float32, g opencl.BNGeom, rows int) []float64 {
	m := rows * g.HW
	slices, length := opencl.ChannelSlices(g.C, m, 256)
	out := make([]float64, g.C)
	for c := 0; c < g.C; c++ {
		for s := 0; s < slices; s++ {
			var vals []float64
			for t := s * length; t < min((s+1)*length, m); t++ {
				vals = append(vals, float64(x[((t/g.HW)*g.C+c)*g.HW+t%g.HW]))
			}
			mu := 0.0
			for _, v := range vals {
				mu += v
			}
			mu /= float64(len(vals))
			for _, v := range vals {
				out[c] += (v - mu) * (v - mu)
			}
		}
		out[c] /= float64(m)
	}
	return out
}

// TestBatchNormSlicedStats: channels of many values are reduced by several
// work-groups each and merged, and give the two-pass float64 statistics
// and gradient sums of the one-group kernels' references; merging without
// the slices' spread is caught.
func TestBatchNormSlicedStats(t *testing.T) {
	l := testLib(t)
	tol := 1e-12
	if !l.FP64() {
		tol = 1e-5
	}
	for _, g := range slicedGeoms {
		for _, rows := range []int{g.N, g.N - 2} {
			for _, relu := range []bool{false, true} {
				name := fmt.Sprintf("%+v rows=%d relu=%t", g, rows, relu)
				if s := l.MomentSlices(g, rows); s < 2 {
					t.Fatalf("%s: %d slice: the test would not reach the merge", name, s)
				}
				x, gamma, beta := driftInput(t, g)
				dy := randn(newRNG(t), len(x), -1, 1)
				xb, gb, bb := upload(t, l, x), upload(t, l, gamma), upload(t, l, beta)
				st, err := l.NewBNState(g.C)
				must(t, err)
				defer st.Release()
				yb, dxb, split := alloc(t, l, len(x)), alloc(t, l, len(x)), alloc(t, l, 4*g.C)
				must(t, l.BNForward(xb, gb, bb, yb, g, rows, bnEps, relu, st))
				mean, variance := bnStatsRef(x, g, rows, false)
				gotVar := download(t, st.Var, g.C)
				checkClose(t, "sliced mean "+name, download(t, st.Mean, g.C), mean, nil)
				checkClose(t, "sliced variance "+name, gotVar, variance, nil)
				detects(t, "the slices merged without their means' spread", gotVar, sliceVarianceRef(x, g, rows), nil)

				must(t, l.BNStatsSplit(xb, g, rows, split))
				host := download(t, split, 4*g.C)
				sm, sv := opencl.JoinPairs(host[:2*g.C], g.C), opencl.JoinPairs(host[2*g.C:], g.C)
				for c := 0; c < g.C; c++ {
					if d := math.Abs(sm[c] - mean[c]); d > tol*(math.Abs(mean[c])+1) {
						t.Errorf("%s: split mean of channel %d = %.17g, want %.17g", name, c, sm[c], mean[c])
					}
					if d := math.Abs(sv[c] - variance[c]); d > tol*(variance[c]+1) {
						t.Errorf("%s: split variance of channel %d = %.17g, want %.17g", name, c, sv[c], variance[c])
					}
				}

				must(t, l.BNBackward(xb, gb, upload(t, l, dy), dxb, g, rows, relu, st, opencl.BNOwnStats, nil))
				_, _, a, b := bnAffineRef(x, gamma, beta, mean, variance, g, relu)
				ref := bnBackRef(x, gamma, dy, mean, variance, a, b, g, rows, relu, opencl.BNOwnStats, nil, nil, 0, false)
				checkClose(t, "sliced ∂β "+name, download(t, st.SumG, g.C), ref.sg, ref.sgs)
				checkClose(t, "sliced ∂γ "+name, download(t, st.SumGX, g.C), ref.sgx, ref.sgxs)
				checkClose(t, "sliced ∂x "+name, download(t, dxb, len(x)), ref.dx, ref.dxs)
			}
		}
	}
}

// TestPropertyChannelSlices: for gopter-drawn channel counts (1–8, where
// the slices are many, or 1–3000), channel lengths (1–40,000 or up to 4M)
// and work-group sizes (1–256), the slices cover each channel's values
// with none empty, stay one where one work-group a channel already fills
// a GPU or has too few values to share, launch about SliceGroups
// work-groups at most, and give a work item at least 4 values.
func TestPropertyChannelSlices(t *testing.T) {
	params := gopter.DefaultTestParameters()
	params.MinSuccessfulTests = 2000
	params.Rng.Seed(11)
	p := gopter.NewProperties(params)
	p.Property("slices cover, none empty, sized", prop.ForAll(func(c, m, lg int) string {
		wg := 1 << lg
		s, length := opencl.ChannelSlices(c, m, wg)
		switch {
		case s < 1 || length < 1:
			return fmt.Sprintf("%d slices of %d", s, length)
		case (s-1)*length >= m || s*length < m:
			return fmt.Sprintf("%d slices of %d for %d values: an empty slice or values left out", s, length, m)
		case s > 1 && (c >= opencl.SliceGroups || m <= 8*wg):
			return fmt.Sprintf("%d slices for %d channels of %d values", s, c, m)
		case s > 1 && c*s >= opencl.SliceGroups+c:
			return fmt.Sprintf("%d work-groups for %d channels", c*s, c)
		case s > 1 && length < 4*wg:
			return fmt.Sprintf("%d values a slice for work-groups of %d", length, wg)
		}
		return ""
	}, gen.OneGenOf(gen.IntRange(1, 8), gen.IntRange(1, 3000)), gen.OneGenOf(gen.IntRange(1, 40000), gen.IntRange(1, 1<<22)), gen.IntRange(0, 8)))
	p.TestingRun(t)
}
