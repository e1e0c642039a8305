package training

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/llpfc/llpfc/internal/rng"
)

// forwardComposite is training-mode batch norm as the composition of
// gorgonia's element-wise ops that bnOp replaced (the slow obvious oracle):
// per-channel means by products with averaging vectors, centring, square,
// variance, inverse square root, scale and shift.
func (b *BatchNorm) forwardComposite(x *gorgonia.Node, track bool) (*gorgonia.Node, error) {
	s := x.Shape()
	pattern := []byte{0}
	if b.Dims == 4 {
		pattern = []byte{0, 2, 3}
	}
	eps := scalarConst(b.dt, b.Eps)
	mean, err := b.channelMean(x)
	if err != nil {
		return nil, err
	}
	xc, err := gorgonia.BroadcastSub(x, mean, nil, pattern)
	if err != nil {
		return nil, err
	}
	sq, err := gorgonia.Square(xc)
	if err != nil {
		return nil, err
	}
	variance, err := b.channelMean(sq)
	if err != nil {
		return nil, err
	}
	ve, err := gorgonia.Add(variance, eps)
	if err != nil {
		return nil, err
	}
	scale, err := invSqrt(ve)
	if err != nil {
		return nil, err
	}
	if track {
		rec := &bnRecord{count: s.TotalSize() / s[1]}
		rec.readMean = gorgonia.Read(mean, &rec.mean)
		rec.readVar = gorgonia.Read(variance, &rec.variance)
		b.records = append(b.records, rec)
	}
	if b.Gamma != nil {
		if scale, err = gorgonia.HadamardProd(scale, b.Gamma); err != nil {
			return nil, err
		}
	}
	y, err := gorgonia.BroadcastHadamardProd(xc, scale, nil, pattern)
	if err != nil {
		return nil, err
	}
	return gorgonia.BroadcastAdd(y, b.Beta, nil, pattern)
}

// TestFusedBatchNormMatchesComposite: the fused op and the composite form give
// the same output, the same gradients with respect to x, γ and β of a random
// linear functional of the output, and the same running statistics after an
// update, for N×C and N×C×H×W inputs, with and without γ (float64).
func TestFusedBatchNormMatchesComposite(t *testing.T) {
	for _, tc := range []struct {
		shape tensor.Shape
		scale bool
	}{{tensor.Shape{7, 3}, true}, {tensor.Shape{5, 4, 3, 2}, true}, {tensor.Shape{6, 2, 4, 4}, false}, {tensor.Shape{1, 3, 2, 2}, true}} {
		run := func(fused bool) (y []float64, grads [][]float64, rm, rv []float64) {
			g := gorgonia.NewGraph()
			r := rng.New(5, "bn")
			xs := make([]float64, tc.shape.TotalSize())
			for i := range xs {
				xs[i] = 3*r.NormFloat64() + 1
			}
			x := gorgonia.NewTensor(g, tensor.Float64, tc.shape.Dims(), gorgonia.WithShape(tc.shape...), gorgonia.WithName("x"),
				gorgonia.WithValue(tensor.New(tensor.WithShape(tc.shape...), tensor.WithBacking(xs))))
			ns := &netState{g: g, dt: tensor.Float64}
			b := ns.newBatchNorm("bn", tc.shape[1], tc.shape.Dims(), 0.1, tc.scale)
			if tc.scale { // a γ other than 1
				gv := b.Gamma.Value().Data().([]float64)
				for i := range gv {
					gv[i] = 0.5 + float64(i)
				}
			}
			var out *gorgonia.Node
			var err error
			if fused {
				out, err = b.Forward(x, true, true)
			} else {
				out, err = b.forwardComposite(x, true)
			}
			require.NoError(t, err)
			w := make([]float64, tc.shape.TotalSize())
			for i := range w {
				w[i] = r.NormFloat64()
			}
			prod, err := gorgonia.HadamardProd(out, gorgonia.NewTensor(g, tensor.Float64, tc.shape.Dims(), gorgonia.WithShape(tc.shape...), gorgonia.WithName("w"),
				gorgonia.WithValue(tensor.New(tensor.WithShape(tc.shape...), tensor.WithBacking(w)))))
			require.NoError(t, err)
			loss, err := gorgonia.Sum(prod)
			require.NoError(t, err)
			wrt := append(gorgonia.Nodes{x}, b.Learnables()...)
			gs, err := gorgonia.Grad(loss, wrt...)
			require.NoError(t, err)
			roots := append(append(gorgonia.Nodes{loss, out}, gs...), ns.RunningStatRoots()...)
			vm := gorgonia.NewTapeMachine(g.SubgraphRoots(roots...))
			defer vm.Close()
			require.NoError(t, vm.RunAll())
			require.NoError(t, ns.UpdateRunningStats())
			y = append(y, out.Value().Data().([]float64)...)
			for _, gn := range gs {
				grads = append(grads, append([]float64(nil), gn.Value().Data().([]float64)...))
			}
			return y, grads, append([]float64(nil), b.RunMean.Value().Data().([]float64)...), append([]float64(nil), b.RunVar.Value().Data().([]float64)...)
		}
		y1, g1, m1, v1 := run(true)
		y0, g0, m0, v0 := run(false)
		assert.InDeltaSlice(t, y0, y1, 1e-12, "%v: output", tc.shape)
		require.Equal(t, len(g0), len(g1))
		for i := range g0 {
			assert.InDeltaSlice(t, g0[i], g1[i], 1e-10, "%v: gradient %d", tc.shape, i)
		}
		assert.InDeltaSlice(t, m0, m1, 1e-12, "%v: running mean", tc.shape)
		assert.InDeltaSlice(t, v0, v1, 1e-12, "%v: running variance", tc.shape)
		assert.False(t, math.IsNaN(y1[0]))
	}
}
