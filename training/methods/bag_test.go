package methods

import (
	"fmt"
	"math"
	"testing"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/device/cpu"
	"github.com/llpfc/llpfc/training/internal/testnet"
	"github.com/llpfc/llpfc/training/loss"
	"github.com/llpfc/llpfc/training/models"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

func init() { models.RegisterModel("test-tiny", testnet.NewFDTinyNet) }

// fdBags are three bags of 5, 9 and 3 instances over 20 rows of 4 features
// (scattered rows, three classes, proportions that are counts of the bag).
func fdBags() (*TrainData, []loss.BagRef) {
	r := rng.New(7, "fd-bags")
	const d, c = 4, 3
	x := make([]float32, 20*d)
	for i := range x {
		x[i] = float32(4*r.Float64() - 2)
	}
	perm := r.Perm(20)
	set := &estimators.BagSet{NumClasses: c}
	var refs []loss.BagRef
	at := 0
	for b, m := range []int{5, 9, 3} {
		bag := estimators.Bag{ID: b, Size: m, Proportions: make([]float64, c)}
		for i := 0; i < m; i++ {
			bag.Indices = append(bag.Indices, perm[at+i])
			bag.Proportions[r.IntN(c)] += 1 / float64(m)
		}
		at += m
		set.Bags = append(set.Bags, bag)
		refs = append(refs, loss.BagRef{Indices: bag.Indices, Proportions: bag.Proportions})
	}
	return &TrainData{X: x, Features: d, Bags: set}, refs
}

// TestEveryBagObjectiveFiniteDifference: every method registered
// with RegisterBag, its objective built as a run builds it (BagSpec.Init and
// .Objective on an Env of three bags) and run through the shared chunked
// engine with the head it reads, returns a loss whose central finite
// difference, in every parameter of a float64 network, is the gradient
// GradientOf adds — with chunks that split a bag, straddle bags and hold the
// whole minibatch. An objective that freezes targets it computes from the
// outputs (a loss.TargetObjective: a stop-gradient) is differenced at its
// targets frozen where the gradient is taken (loss.FreezeTargets), the loss
// its gradient is the derivative of. A new bag method is checked here by
// being registered.
func TestEveryBagObjectiveFiniteDifference(t *testing.T) {
	var checked []string
	for _, d := range All() {
		if d.Bag == nil {
			continue
		}
		checked = append(checked, d.Name)
		for _, chunk := range []int{1, 4, 100} {
			worst := bagGradientError(t, d, chunk, true)
			assert.LessOrEqual(t, worst.err, 1e-6, "%s chunk %d: %s", d.Name, chunk, worst.where)
		}
	}
	assert.Subset(t, checked, []string{EasyLLP, MixBag, LLPPVC}, "the registry's bag objectives")
}

// fdError is the worst disagreement of a gradient with its finite
// difference: |fd − g| / max(1, |fd|), and where it is.
type fdError struct {
	err   float64
	where string
}

// bagGradientError runs method d's objective through the chunked engine on
// fdBags with chunks of chunk instances and returns the worst disagreement,
// over every parameter of a float64 network, between the gradient GradientOf
// adds and the central finite difference of the loss it returns — with a
// loss.TargetObjective's targets frozen at the gradient's point when freeze
// is set (as TestEveryBagObjectiveFiniteDifference does), or recomputed at
// every perturbed point when it is not (the difference that does not check
// a stop-gradient).
func bagGradientError(t *testing.T, d *Descriptor, chunk int, freeze bool) fdError {
	t.Helper()
	data, refs := fdBags()
	spec := nn.ModelSpec{Name: "test-tiny", Features: 4, NumClasses: 3, Dtype: tensor.Float64}
	g := gorgonia.NewGraph()
	m, err := models.NewModel(g, spec, rng.New(4, "init"))
	require.NoError(t, err)
	cfg := Config{Method: d.Name, BatchSize: len(refs), ChunkSize: chunk, Epochs: 1}
	env := &Env{Config: &cfg, Data: data, Spec: spec, Graph: g, Model: m, Backend: cpu.New()}
	if d.Bag.Init != nil {
		require.NoError(t, d.Bag.Init(env), d.Name)
	}
	obj, err := d.Bag.Objective(env)
	require.NoError(t, err, d.Name)
	if to, ok := obj.(loss.TargetObjective); ok && freeze {
		obj = loss.FreezeTargets(to) // frozen at the first GradientOf below: the gradient's point
	}
	k, err := loss.NewBagChunked(env.Backend, g, m, spec, chunk, obj.Head(), "fd")
	require.NoError(t, err)
	defer k.Close()
	params := m.Learnables()
	lossAt := func(into testnet.HostGrads) float64 {
		if into == nil {
			into = testnet.NewHostGrads(params)
		}
		l, n, err := k.GradientOf(data.X, refs, obj, into)
		require.NoError(t, err, d.Name)
		require.Equal(t, 17, n)
		return l
	}
	acc := testnet.NewHostGrads(params)
	lossAt(acc)
	const h = 1e-6
	var worst fdError
	for i, p := range params {
		v := p.Value().Data().([]float64)
		for j := range v {
			orig := v[j]
			v[j] = orig + h
			lp := lossAt(nil)
			v[j] = orig - h
			lm := lossAt(nil)
			v[j] = orig
			fd := (lp - lm) / (2 * h)
			if e := math.Abs(fd-acc[i][j]) / math.Max(1, math.Abs(fd)); e > worst.err || worst.where == "" {
				worst = fdError{e, fmt.Sprintf("%s[%d]: gradient %.10g, finite difference %.10g", p.Name(), j, acc[i][j], fd)}
			}
		}
	}
	return worst
}
