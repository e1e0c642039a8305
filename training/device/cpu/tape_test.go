package cpu

import (
	"math"
	"testing"

	"github.com/llpfc/llpfc/internal/rng"

	"github.com/llpfc/llpfc/training/loss"
	"github.com/llpfc/llpfc/training/models"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// TestTapeRewindMatchesReset runs the FC-loss training graph of mlp, cnn
// and wrn-16-4 (batch norm with running statistics, dropout masks) several
// times on changing inputs, once with a tape that is rewound (kept
// registers) and once with a plain tape machine that is Reset, and requires
// bit-equal losses, gradients and running statistics, and untouched
// parameters.
func TestTapeRewindMatchesReset(t *testing.T) {
	specs := []nn.ModelSpec{
		{Name: "mlp", Channels: 1, Height: 8, Width: 8, NumClasses: 4},
		{Name: "cnn", Channels: 1, Height: 8, Width: 8, NumClasses: 4},
		{Name: "wrn-16-4", Channels: 3, Height: 8, Width: 8, NumClasses: 4, Dropout: 0.3},
	}
	for _, spec := range specs {
		name := spec.Name
		if !contains(models.ModelNames(), name) {
			t.Fatalf("model %s not registered", name)
		}
		type setup struct {
			model      nn.Model
			x, r, w    *tensor.Dense
			loss       *gorgonia.Node
			grads      gorgonia.Nodes
			params     gorgonia.Nodes
			run, reset func() error
		}
		build := func(rewind bool) setup {
			g := gorgonia.NewGraph()
			m, err := models.NewModel(g, spec, rng.New(1, "init"))
			require.NoError(t, err)
			var s setup
			s.model = m
			var xn, rn, wn *gorgonia.Node
			xn, s.x = nn.NewInputNode(g, tensor.Float32, "x", spec.InputShape(5))
			rn, s.r = nn.NewInputNode(g, tensor.Float32, "r", tensor.Shape{5, 4})
			wn, s.w = nn.NewInputNode(g, tensor.Float32, "w", tensor.Shape{5})
			z, err := m.Forward(xn, true)
			require.NoError(t, err)
			if s.loss, err = loss.FCLoss(z, rn, wn); err != nil {
				t.Fatal(err)
			}
			s.params = m.Learnables()
			if s.grads, err = gorgonia.Grad(s.loss, s.params...); err != nil {
				t.Fatal(err)
			}
			if rewind {
				tp := newTape(g)
				if tp.pc == nil {
					t.Fatal("tape: gorgonia's tapeMachine fields not found; rewinding falls back to Reset")
				}
				s.run, s.reset = tp.RunAll, func() error { tp.Rewind(); return nil }
			} else {
				vm := gorgonia.NewTapeMachine(g)
				s.run, s.reset = vm.RunAll, func() error { vm.Reset(); return nil }
			}
			return s
		}
		a, b := build(true), build(false)
		if name == "wrn-16-4" {
			_, st := a.model.(nn.StochasticModel)
			_, bn := a.model.(nn.BatchNormModel)
			if !st || !bn {
				t.Fatalf("wrn-16-4: StochasticModel %v, BatchNormModel %v; the test needs both", st, bn)
			}
		}
		before := append([]float32(nil), a.params[0].Value().Data().([]float32)...)
		src := rng.New(2, "inputs")
		for run := 0; run < 4; run++ {
			for _, pair := range [][2]*tensor.Dense{{a.x, b.x}, {a.r, b.r}, {a.w, b.w}} {
				da, db := pair[0].Data().([]float32), pair[1].Data().([]float32)
				for i := range da {
					da[i] = src.Float32()
					db[i] = da[i]
				}
			}
			for _, s := range []setup{a, b} {
				if sm, ok := s.model.(nn.StochasticModel); ok {
					sm.Resample(rng.New(int64(run), "masks"))
				}
				require.NoError(t, s.run())
				if bn, ok := s.model.(nn.BatchNormModel); ok {
					require.NoError(t, bn.UpdateRunningStats())
				}
			}
			if bn, ok := a.model.(nn.BatchNormModel); ok {
				sa, sb := bn.RunningStats(), b.model.(nn.BatchNormModel).RunningStats()
				for k := range sa {
					va, vb := sa[k].Value().Data().([]float32), sb[k].Value().Data().([]float32)
					for i := range va {
						require.Equal(t, vb[i], va[i], "%s run %d: running statistic %d[%d] %v (rewound) vs %v (reset)", name, run, k, i, va[i], vb[i])
					}
				}
			}
			la, _ := nn.ScalarOf(a.loss.Value())
			lb, _ := nn.ScalarOf(b.loss.Value())
			if la != lb || math.IsNaN(la) {
				t.Fatalf("%s run %d: loss %v (rewound) vs %v (reset)", name, run, la, lb)
			}
			for k := range a.grads {
				ga, gb := a.grads[k].Value().Data().([]float32), b.grads[k].Value().Data().([]float32)
				for i := range ga {
					require.Equal(t, math.Float32bits(gb[i]), math.Float32bits(ga[i]), "%s run %d: grad %d[%d] %v (rewound) vs %v (reset)", name, run, k, i, ga[i], gb[i])
				}
			}
			a.reset()
			b.reset()
		}
		after := a.params[0].Value().Data().([]float32)
		for i := range before {
			require.Equal(t, after[i], before[i], "%s: running the machine changed parameter 0[%d]", name, i)
		}
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
