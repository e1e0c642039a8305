package models

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/internal/testutil"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// torchDump is fixtures/authors/state_dicts.json, written by
// fixtures/authors/state_dicts.py from PyTorch 1.13 and the authors' model
// classes at 1d0cbc5.
type torchDump struct {
	Commit  string            `json:"commit"`
	Inputs  map[string]string `json:"inputs"`
	Classes int               `json:"classes"`
	Models  map[string][]struct {
		Name  string `json:"name"`
		Shape []int  `json:"shape"`
		Dtype string `json:"dtype"`
	} `json:"models"`
}

func readTorchDump(t *testing.T) torchDump {
	b, err := os.ReadFile(filepath.Join("..", "..", "fixtures", "authors", "state_dicts.json"))
	require.NoError(t, err)
	var d torchDump
	require.NoError(t, json.Unmarshal(b, &d))
	require.Equal(t, "1d0cbc5349a07e69e73737ec86ec2651a3d0ebe7", d.Commit)
	return d
}

func buildFor(t *testing.T, name string, ch, side, classes int, seed int64) (*gorgonia.ExprGraph, nn.Model, nn.ModelSpec) {
	g := gorgonia.NewGraph()
	spec := nn.ModelSpec{Name: name, Channels: ch, Height: side, Width: side, NumClasses: classes, Dtype: tensor.Float32}
	m, err := NewModel(g, spec, rng.New(seed, "init"))
	require.NoError(t, err)
	return g, m, spec
}

// TestStateDictMatchesPyTorch: the keys, their order, shapes and element
// types of StateDict are those of PyTorch's state_dict of the authors'
// WideResNet-16-4, ResNet-18 and VGG16-BN classes and of the documented
// Sequentials of mlp, cnn and cnn-bn (a golden per architecture).
func TestStateDictMatchesPyTorch(t *testing.T) {
	d := readTorchDump(t)
	require.Len(t, d.Models, 6)
	for name, want := range d.Models {
		ch, side := 3, 32
		if d.Inputs[name] == "1x28x28" {
			ch, side = 1, 28
		}
		_, m, _ := buildFor(t, name, ch, side, d.Classes, 1)
		got, err := StateDict(m)
		require.NoError(t, err, name)
		require.Len(t, got, len(want), "%s: number of state_dict entries", name)
		for i, w := range want {
			g := got[i]
			assert.Equal(t, w.Name, g.Name, "%s: entry %d", name, i)
			assert.Equal(t, w.Shape, g.Shape, "%s: %s shape", name, w.Name)
			dtype := "float32"
			if g.Count != nil {
				dtype = "int64"
			} else {
				assert.Equal(t, prod(w.Shape), len(g.Data), "%s: %s values", name, w.Name)
			}
			assert.Equal(t, w.Dtype, dtype, "%s: %s element type", name, w.Name)
		}
	}
	_, err := StateDict(&LLPGANGenerator{})
	assert.Error(t, err, "a network without a PyTorch equivalent")
}

// TestStateDictLinearIsPyTorchs: the mlp's logits computed from the
// exported tensors with PyTorch's definitions — Linear(x) = x·Wᵀ + b with
// W out×in, ReLU between — equal the model's own evaluation-mode forward
// pass (so the transposition and the module order are right, not just the
// shapes).
func TestStateDictLinearIsPyTorchs(t *testing.T) {
	g, m, spec := buildFor(t, ModelMLP, 1, 6, 3, 2)
	x, xt := nn.NewInputNode(g, tensor.Float32, "x", spec.InputShape(4))
	r := rng.New(3, "x")
	xs := xt.Data().([]float32)
	for i := range xs {
		xs[i] = float32(r.NormFloat64())
	}
	z, err := m.Forward(x, false)
	require.NoError(t, err)
	vm := gorgonia.NewTapeMachine(g)
	defer vm.Close()
	require.NoError(t, vm.RunAll())
	want := z.Value().Data().([]float32)

	sd, err := StateDict(m)
	require.NoError(t, err)
	h := make([][]float64, 4)
	for i := range h {
		for _, v := range xs[i*36 : (i+1)*36] {
			h[i] = append(h[i], float64(v))
		}
	}
	for l := 0; l < 3; l++ {
		w, b := sd[2*l], sd[2*l+1]
		out, in := w.Shape[0], w.Shape[1]
		for i := range h {
			y := make([]float64, out)
			for o := 0; o < out; o++ {
				s := float64(b.Data[o])
				for k := 0; k < in; k++ {
					s += h[i][k] * float64(w.Data[o*in+k])
				}
				if l < 2 {
					s = math.Max(s, 0)
				}
				y[o] = s
			}
			h[i] = y
		}
	}
	for i := range h {
		for c := range h[i] {
			assert.InDelta(t, h[i][c], float64(want[i*3+c]), 1e-4, "logit %d,%d", i, c)
		}
	}
}

// TestLoadStateDictRoundTrip: the state dict of one initialization loaded
// into a model of another seed makes every parameter and running statistic
// and the evaluation-mode logits equal; a state dict of another
// architecture or class count is refused naming the first difference.
func TestLoadStateDictRoundTrip(t *testing.T) {
	for _, name := range []string{ModelMLP, ModelCNNBN, ModelWRN164} {
		gA, a, spec := buildFor(t, name, 3, 32, 4, 1)
		bnA, ok := a.(nn.BatchNormModel)
		if ok { // running statistics away from their initial 0 and 1
			for i, n := range bnA.RunningStats() {
				for j, v := range testutil.RandSlice(rng.New(int64(i), "rs"), n.Shape().TotalSize(), 0.5, 2) {
					n.Value().Data().([]float32)[j] = float32(v)
				}
			}
		}
		sd, err := StateDict(a)
		require.NoError(t, err)
		gB, b, _ := buildFor(t, name, 3, 32, 4, 99)
		require.NoError(t, LoadStateDict(b, sd))
		for i, p := range a.Learnables() {
			assert.Equal(t, p.Value().Data(), b.Learnables()[i].Value().Data(), "%s: parameter %s", name, p.Name())
		}
		if ok {
			for i, n := range bnA.RunningStats() {
				assert.Equal(t, n.Value().Data(), b.(nn.BatchNormModel).RunningStats()[i].Value().Data(), "%s: %s", name, n.Name())
			}
		}
		logits := func(g *gorgonia.ExprGraph, m nn.Model) []float32 {
			x, xt := nn.NewInputNode(g, tensor.Float32, "x", spec.InputShape(2))
			for i, v := range testutil.RandSlice(rng.New(5, "x"), xt.Shape().TotalSize(), -1, 1) {
				xt.Data().([]float32)[i] = float32(v)
			}
			z, err := m.Forward(x, false)
			require.NoError(t, err)
			vm := gorgonia.NewTapeMachine(g.SubgraphRoots(z))
			defer vm.Close()
			require.NoError(t, vm.RunAll())
			return append([]float32(nil), z.Value().Data().([]float32)...)
		}
		assert.Equal(t, logits(gA, a), logits(gB, b), "%s: evaluation logits after loading", name)
	}
	_, mlp, _ := buildFor(t, ModelMLP, 3, 32, 4, 1)
	_, cnn, _ := buildFor(t, ModelCNN, 3, 32, 4, 1)
	sd, err := StateDict(mlp)
	require.NoError(t, err)
	assert.ErrorContains(t, LoadStateDict(cnn, sd), "no 0.weight")
	_, mlp10, _ := buildFor(t, ModelMLP, 3, 32, 10, 1)
	assert.ErrorContains(t, LoadStateDict(mlp10, sd), "5.weight has shape [4 256], model mlp wants [10 256]")
}

// TestCanExportIsStateDict: CanExport, which answers from the name alone,
// agrees with StateDict on every registered architecture.
func TestCanExportIsStateDict(t *testing.T) {
	for _, name := range ModelNames() {
		g := gorgonia.NewGraph()
		spec := nn.ModelSpec{Name: name, Channels: 3, Height: 32, Width: 32, NumClasses: 4, Dtype: tensor.Float32}
		m, err := NewModel(g, spec, rng.New(1, "init"))
		if err != nil {
			t.Logf("%s: not built on 3×32×32 (%v); CanExport says %v", name, err, CanExport(name))
			assert.Error(t, CanExport(name), name)
			continue
		}
		_, err = StateDict(m)
		assert.Equal(t, err == nil, CanExport(name) == nil, "%s: StateDict error %v, CanExport %v", name, err, CanExport(name))
	}
}
