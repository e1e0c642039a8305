package loss

import (
	"math"
	"testing"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
)

// newerObjectives are the newer methods' losses, in forms
// that exercise their branches on the small KL fixture: EasyLLP with a given
// prior, LLP-PVC by the exact likelihood and, in its "fft" variant, by the
// rescaled DP and by the FFT product, and MixBag's CILoss
// with one bag given an interval that holds some classes and not others.
func newerObjectives(f klFixture) []struct {
	name string
	obj  BagObjective
	bags []BagRef
} {
	ci := append([]BagRef(nil), f.bags...)
	ci[1].Lo = []float64{-1, 0, 2} // class 0 always inside, class 2 never, class 1 by value
	ci[1].Hi = []float64{2, 0.35, 3}
	return []struct {
		name string
		obj  BagObjective
		bags []BagRef
	}{
		{"easyllp", &EasyLLP{Prior: []float64{0.2, 0.5, 0.3}}, f.bags},
		{"easyllp-minibatch-prior", &EasyLLP{}, f.bags},
		{"llppvc-exact", &PVC{}, f.bags},
		{"llppvc-dp", &PVC{Likelihood: PVCFFT}, f.bags},
		{"llppvc-fft", &PVC{Likelihood: PVCFFT, DPMax: -1}, f.bags},
		{"mixbag", &CILoss{}, ci},
	}
}

// TestBagObjectivesFiniteDifference: for every newer objective and chunk
// sizes that split bags, straddle their boundaries and exceed the
// minibatch, the gradient GradientOf adds is the central finite difference
// of the loss it returns, parameter by parameter (float64 network): the host
// objective's ∂L/∂out, the head and the chunked surrogate together are the
// exact gradient.
func TestBagObjectivesFiniteDifference(t *testing.T) {
	f := newKLFixture([]int{5, 9, 3}, 4, 3, 3)
	for _, o := range newerObjectives(f) {
		for _, chunk := range []int{1, 4, 100} {
			g := gorgonia.NewGraph()
			m, err := models.NewModel(g, f.spec, rng.New(4, "init"))
			require.NoError(t, err)
			k, err := NewBagChunked(cpuBackend, g, m, f.spec, chunk, o.obj.Head(), "test")
			require.NoError(t, err)
			params := m.Learnables()
			lossAt := func(into hostAcc) float64 {
				if into == nil {
					into = newHostAcc(params)
				}
				l, n, err := k.GradientOf(f.x, o.bags, o.obj, into)
				require.NoError(t, err)
				require.Equal(t, 17, n)
				return l
			}
			acc := newHostAcc(params)
			lossAt(acc)
			const h = 1e-6
			for i, p := range params {
				d := p.Value().Data().([]float64)
				for j := range d {
					orig := d[j]
					d[j] = orig + h
					lp := lossAt(nil)
					d[j] = orig - h
					lm := lossAt(nil)
					d[j] = orig
					fd := (lp - lm) / (2 * h)
					assert.LessOrEqual(t, math.Abs(fd-acc[i][j]), 1e-6*math.Max(1, math.Abs(fd)),
						"%s chunk %d: %s[%d]: gradient %.10g, finite difference %.10g", o.name, chunk, p.Name(), j, acc[i][j], fd)
				}
			}
			k.Close()
		}
	}
}

// An objective states the head it reads, and GradientOf refuses one of
// another head than its chunk graph computes (a logits objective given
// probabilities would still run, and its gradient still check): EasyLLP and
// LLP-PVC read the logits, MixBag's CILoss and SqProp the softmax outputs.
func TestBagObjectiveReadsItsOwnHead(t *testing.T) {
	f := newKLFixture([]int{5, 9, 3}, 4, 3, 3)
	for _, tc := range []struct {
		obj  BagObjective
		head Head
	}{{&EasyLLP{}, HeadLogits}, {&PVC{}, HeadLogits}, {&CILoss{}, HeadSoftmax}, {&SqProp{}, HeadSoftmax}} {
		assert.Equal(t, tc.head, tc.obj.Head(), "%T", tc.obj)
		other := HeadSoftmax
		if tc.head == HeadSoftmax {
			other = HeadLogits
		}
		g := gorgonia.NewGraph()
		m, err := models.NewModel(g, f.spec, rng.New(4, "init"))
		require.NoError(t, err)
		k, err := NewBagChunked(cpuBackend, g, m, f.spec, 4, other, "test")
		require.NoError(t, err)
		_, _, err = k.GradientOf(f.x, f.bags, tc.obj, newHostAcc(m.Learnables()))
		assert.ErrorContains(t, err, "the objective reads the "+tc.head.String()+", the chunk graph computes the "+other.String(), "%T", tc.obj)
		k.Close()
	}
}
