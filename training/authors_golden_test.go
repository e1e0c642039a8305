package training

import (
	"encoding/json"
	"math"
	"os"
	"testing"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/training/internal/testutil"
	"github.com/llpfc/llpfc/training/loss"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Golden outputs of the authors' own functions at commit 1d0cbc5, written by
// fixtures/authors/golden.py: their FC minibatch loss (llpfc.py loss_f through
// llpfclib/train_fun.py compute_forward_loss_on_minibatch), their KL loss
// (kllib/train_fun.py compute_kl_loss_on_bagbatch) and their LLP-VAT weight
// schedule (llpvatlib/train_fun.py), each with the gradient in the logits.
type authorsGolden struct {
	Commit string `json:"commit"`
	FC     []struct {
		Name       string        `json:"name"`
		Logits     [][]float64   `json:"logits"`
		Transition [][][]float64 `json:"transition"`
		NoisyY     []int         `json:"noisy_y"`
		Weights    []float64     `json:"weights"`
		Loss       float64       `json:"loss"`
		Grad       [][]float64   `json:"grad"`
	} `json:"fc_loss"`
	KL []struct {
		Name        string        `json:"name"`
		Logits      [][][]float64 `json:"logits"`
		Proportions [][]float64   `json:"proportions"`
		Loss        float64       `json:"loss"`
		Grad        [][][]float64 `json:"grad"`
	} `json:"kl_loss"`
	VAT struct {
		Iterations    []int     `json:"iterations"`
		AuthorsWeight []float64 `json:"authors_weight"`
		RampupLength  float64   `json:"rampup_length"`
		SigmoidRampup []float64 `json:"sigmoid_rampup"`
	} `json:"vat_weight"`
}

func readAuthorsGolden(t *testing.T) authorsGolden {
	t.Helper()
	b, err := os.ReadFile("../fixtures/authors/golden.json")
	require.NoError(t, err)
	var d authorsGolden
	require.NoError(t, json.Unmarshal(b, &d))
	require.Equal(t, "1d0cbc5349a07e69e73737ec86ec2651a3d0ebe7", d.Commit, "golden.json's commit")
	require.NotEmpty(t, d.FC)
	require.NotEmpty(t, d.KL)
	return d
}

// lossAndGrad runs loss(z) on a float64 graph and returns its value and
// ∂loss/∂z.
func lossAndGrad(t *testing.T, z []float64, shape tensor.Shape, build func(g *gorgonia.ExprGraph, z *gorgonia.Node) (*gorgonia.Node, error)) (float64, []float64) {
	t.Helper()
	g := gorgonia.NewGraph()
	zn := gorgonia.NewTensor(g, tensor.Float64, len(shape), gorgonia.WithShape(shape...), gorgonia.WithName("z"),
		gorgonia.WithValue(tensor.New(tensor.WithShape(shape...), tensor.WithBacking(append([]float64(nil), z...)))))
	loss, err := build(g, zn)
	require.NoError(t, err)
	grads, err := gorgonia.Grad(loss, zn)
	require.NoError(t, err)
	vm := gorgonia.NewTapeMachine(g)
	defer vm.Close()
	require.NoError(t, vm.RunAll())
	v, err := nn.ScalarOf(loss.Value())
	require.NoError(t, err)
	return v, append([]float64(nil), grads[0].Value().Data().([]float64)...)
}

// TestAuthorsGoldenFCLoss: Compat original's minibatch loss — FCLossClamped
// with MinibatchWeights dividing by the minibatch's weight sum — equals the
// authors' loss_f and its gradient in the logits (float32 there, hence the
// tolerance), including an instance whose corrected probability is 0, where
// their clamp at 1e-8 gives −log(1e-8)·w and no gradient. The default loss
// (FCLoss with the floor 1e-12 and the paper's scale) does not.
func TestAuthorsGoldenFCLoss(t *testing.T) {
	d := readAuthorsGolden(t)
	for _, c := range d.FC {
		B, C := len(c.Logits), len(c.Logits[0])
		z := make([]float64, 0, B*C)
		r := make([]float64, 0, B*C)
		for i := range c.Logits {
			z = append(z, c.Logits[i]...)
			for j := 0; j < C; j++ {
				r = append(r, c.Transition[i][c.NoisyY[i]][j])
			}
		}
		w32 := make([]float32, B)
		MinibatchWeights(w32, func(k int) float64 { return c.Weights[k] }, 0, estimators.CompatOriginal)
		w := make([]float64, B)
		for i, v := range w32 {
			w[i] = float64(v)
		}
		build := func(clamped bool) func(g *gorgonia.ExprGraph, zn *gorgonia.Node) (*gorgonia.Node, error) {
			return func(g *gorgonia.ExprGraph, zn *gorgonia.Node) (*gorgonia.Node, error) {
				rn := testutil.ConstInput(g, "r", tensor.Shape{B, C}, r)
				wn := testutil.ConstInput(g, "w", tensor.Shape{B}, w)
				if clamped {
					return loss.FCLossClamped(zn, rn, wn)
				}
				return loss.FCLoss(zn, rn, wn)
			}
		}
		loss, grad := lossAndGrad(t, z, tensor.Shape{B, C}, build(true))
		assert.InEpsilon(t, c.Loss, loss, 2e-6, "%s: loss", c.Name)
		for i := range c.Grad {
			for j := range c.Grad[i] {
				assert.InDelta(t, c.Grad[i][j], grad[i*C+j], 2e-6, "%s: ∂loss/∂z[%d][%d]", c.Name, i, j)
			}
		}
		if c.Name == "b8c4-peaked" {
			floor, _ := lossAndGrad(t, z, tensor.Shape{B, C}, build(false))
			assert.Greater(t, math.Abs(floor-c.Loss), 1e-2, "the floored loss should differ where the clamp acts")
		}
	}
}

// TestAuthorsGoldenKLLoss: the authors' KL loss on fixed logits (Σ over
// classes, mean over bags) is C times KLLoss (the paper's 1/(CB)), in value
// and in gradient; TestKLScaleAuthorsFormula ties KLChunked's authors scale
// to the same C·KLLoss. A loss averaged over the classes, or over the
// instances, fails here.
func TestAuthorsGoldenKLLoss(t *testing.T) {
	d := readAuthorsGolden(t)
	for _, c := range d.KL {
		nb, bs, C := len(c.Logits), len(c.Logits[0]), len(c.Logits[0][0])
		n := nb * bs
		z := make([]float64, 0, n*C)
		for _, bag := range c.Logits {
			for _, row := range bag {
				z = append(z, row...)
			}
		}
		avg := make([]float64, nb*n)
		props := make([]float64, 0, nb*C)
		for k := 0; k < nb; k++ {
			for j := 0; j < bs; j++ {
				avg[k*n+k*bs+j] = 1 / float64(bs)
			}
			props = append(props, c.Proportions[k]...)
		}
		loss, grad := lossAndGrad(t, z, tensor.Shape{n, C}, func(g *gorgonia.ExprGraph, zn *gorgonia.Node) (*gorgonia.Node, error) {
			l, err := loss.KLLoss(zn, testutil.ConstInput(g, "avg", tensor.Shape{nb, n}, avg), testutil.ConstInput(g, "props", tensor.Shape{nb, C}, props))
			if err != nil {
				return nil, err
			}
			return gorgonia.Mul(l, gorgonia.NewConstant(float64(C)))
		})
		assert.InEpsilon(t, c.Loss, loss, 2e-6, "%s: loss", c.Name)
		for k := range c.Grad {
			for j := range c.Grad[k] {
				for q := range c.Grad[k][j] {
					assert.InDelta(t, c.Grad[k][j][q], grad[(k*bs+j)*C+q], 2e-6, "%s: ∂loss/∂z[%d][%d][%d]", c.Name, k, j, q)
				}
			}
		}
	}
}

// TestAuthorsGoldenVATWeight: the default schedule (VATRampupAuthors) is the
// authors' get_rampup_weight(0.05, i, −1), a constant 0.05, at every step
// they evaluated; SigmoidRampup (the llpvat option) equals their
// sigmoid_rampup.
func TestAuthorsGoldenVATWeight(t *testing.T) {
	d := readAuthorsGolden(t)
	require.NotEmpty(t, d.VAT.Iterations)
	for k, it := range d.VAT.Iterations {
		assert.Equal(t, d.VAT.AuthorsWeight[k], loss.VATRampupAuthors.Weight(it, 1000), "step %d", it)
		assert.InDelta(t, d.VAT.SigmoidRampup[k], loss.SigmoidRampup(float64(it), d.VAT.RampupLength), 1e-15, "step %d", it)
	}
}
