package optim

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOptimizerStepsByHand applies two steps to one parameter θ₀ = 1 with
// gradients 0.5 then 0.25 (SGD variants: 0.5 both times) and compares with
// updates computed by hand from PyTorch's documented rules:
//
// SGD, lr 0.1, μ 0.9, λ 0.01, dampening 0:
//
//	step 1: d = 0.5 + 0.01·1 = 0.51, b = 0.51, θ = 1 − 0.051 = 0.949
//	step 2: d = 0.5 + 0.00949 = 0.50949, b = 0.9·0.51 + 0.50949 = 0.96849,
//	        θ = 0.949 − 0.096849 = 0.852151
//
// Nesterov (same): step 1: d = 0.51 + 0.9·0.51 = 0.969, θ = 0.9031;
//
//	step 2: d = 0.509031, b = 0.459 + 0.509031 = 0.968031,
//	        d = 0.509031 + 0.8712279 = 1.3802589, θ = 0.76507411
//
// SGD without momentum, lr 0.1, λ 0.01: θ = 1 − 0.1·0.51 = 0.949, then
// 0.949 − 0.1·0.50949 = 0.898051.
//
// Adam, lr 0.1, β = (0.9, 0.999), ε 1e-8, λ 0:
//
//	step 1: m = 0.05, v = 0.00025, m̂ = 0.5, v̂ = 0.25, θ = 1 − 0.1·0.5/(0.5+1e-8) ≈ 0.9
//	step 2: m = 0.045 + 0.025 = 0.07, v = 0.00024975 + 0.0000625 = 0.00031225,
//	        m̂ = 0.07/0.19 = 0.36842105, v̂ = 0.00031225/0.001999 = 0.15620310,
//	        θ = 0.9 − 0.1·0.36842105/0.39522538 = 0.80678204
//
// AdamW, λ 0.01: step 1 θ = 1·(1 − 0.001) − 0.1 = 0.899.
// Adam with L2 λ 0.01: step 1 g = 0.51, m̂/√v̂ = 1, θ = 0.9.
//
// Adam with ε 0.1 (large enough to matter; PyTorch adds ε outside the root,
// √v̂ + ε, not √(v̂ + ε)): step 1 θ = 1 − 0.1·0.5/(0.5 + 0.1) = 0.91666667;
// step 2 (m̂, v̂ as above) θ = 0.91666667 − 0.1·0.36842105/(0.39522538 + 0.1)
// = 0.84227204.
//
// SGD with dampening 0.5, lr 0.1, μ 0.9, λ 0 (PyTorch's first step sets
// b = d, undamped): step 1 b = 0.5, θ = 0.95; step 2 b = 0.9·0.5 + 0.5·0.5 =
// 0.7, θ = 0.95 − 0.07 = 0.88.
func TestOptimizerStepsByHand(t *testing.T) {
	cases := []struct {
		name       string
		cfg        Config
		grads      []float32
		want1      float64
		want2      float64
		checkStep2 bool
	}{
		{"sgd-momentum", Config{Name: "sgd", LR: 0.1, Momentum: 0.9, WeightDecay: 0.01}, []float32{0.5, 0.5}, 0.949, 0.852151, true},
		{"nesterov", Config{Name: "nesterov", LR: 0.1, Momentum: 0.9, WeightDecay: 0.01}, []float32{0.5, 0.5}, 0.9031, 0.76507411, true},
		{"sgd-plain", Config{Name: "sgd", LR: 0.1, WeightDecay: 0.01}, []float32{0.5, 0.5}, 0.949, 0.898051, true},
		{"adam", Config{Name: "adam", LR: 0.1}, []float32{0.5, 0.25}, 0.9, 0.80678204, true},
		{"adamw", Config{Name: "adamw", LR: 0.1, WeightDecay: 0.01}, []float32{0.5}, 0.899, 0, false},
		{"adam-l2", Config{Name: "adam", LR: 0.1, WeightDecay: 0.01}, []float32{0.5}, 0.9, 0, false},
		{"adam-eps", Config{Name: "adam", LR: 0.1, Eps: 0.1}, []float32{0.5, 0.25}, 0.91666667, 0.84227204, true},
		{"sgd-dampening", Config{Name: "sgd", LR: 0.1, Momentum: 0.9, Dampening: 0.5}, []float32{0.5, 0.5}, 0.95, 0.88, true},
	}
	// Nine copies of the one parameter: Adam updates the first eight in
	// AVX2 where the processor has it (internal/vec) and the ninth in Go.
	const n = 9
	fill := func(v float32) []float32 {
		s := make([]float32, n)
		for i := range s {
			s[i] = v
		}
		return s
	}
	for _, c := range cases {
		o, err := New(c.cfg, []int{n})
		require.NoError(t, err, "%s: %v", c.name, err)
		p := [][]float32{fill(1)}
		for s, g := range c.grads {
			require.NoError(t, o.Step(p, [][]float32{fill(g)}, c.cfg.LR))
			want := c.want1
			if s == 1 {
				want = c.want2
			}
			for i, v := range p[0] {
				if math.Abs(float64(v)-want) > 5e-6 { // float32 arithmetic, as in PyTorch
					t.Errorf("%s step %d: θ[%d] = %.8f, want %.8f", c.name, s+1, i, v, want)
				}
			}
		}
	}
}

func TestOptimizerConfigErrors(t *testing.T) {
	for _, c := range []Config{
		{Name: "rmsprop", LR: 0.1},
		{Name: "sgd", LR: 0},
		{Name: "sgd", LR: math.NaN()},
		{Name: "sgd", LR: 0.1, Momentum: 1},
		{Name: "sgd", LR: 0.1, WeightDecay: -1},
		{Name: "nesterov", LR: 0.1},
		{Name: "nesterov", LR: 0.1, Momentum: 0.9, Dampening: 0.1},
		{Name: "adam", LR: 0.1, Beta1: 1},
	} {
		if _, err := New(c, []int{1}); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}

// TestOptimizerStateRoundTrip checks that SetState(State()) continues the
// same trajectory as an uninterrupted optimizer.
func TestOptimizerStateRoundTrip(t *testing.T) {
	for _, name := range []string{"nesterov", "adam"} {
		cfg := Config{Name: name, LR: 0.05, Momentum: 0.9, WeightDecay: 1e-3}
		a, _ := New(cfg, []int{3})
		pa := [][]float32{{1, -2, 3}}
		g := [][]float32{{0.3, -0.1, 0.7}}
		a.Step(pa, g, cfg.LR)
		b, _ := New(cfg, []int{3})
		require.NoError(t, b.SetState(*a.State()))
		pb := [][]float32{append([]float32(nil), pa[0]...)}
		a.Step(pa, g, cfg.LR)
		b.Step(pb, g, cfg.LR)
		for i := range pa[0] {
			assert.Equal(t, pb[0][i], pa[0][i], "%s: resumed θ[%d] = %v, uninterrupted %v", name, i, pb[0][i], pa[0][i])
		}
		if err := b.SetState(State{Buf: [][]float32{{1}}}); err == nil {
			t.Errorf("%s: mis-shaped state accepted", name)
		}
	}
}

// TestSchedules checks the multistep and cosine-restart rates at the epochs
// where they change, from their definitions:
// MultiStep{[60 120 160], 0.2} from 0.01: 0.01 up to epoch 59, 0.002 from
// 60, 0.0004 from 120, 0.00008 from 160.
// Cosine restarts T0 = 10, TMult = 2, base 1, min 0: 1 at epochs 0, 10 and
// 30 (restarts; cycles of 10 then 20), 0.5 at 5 (cos π/2) and 20 (10 of 20).
// With η_min = 0.1 (PyTorch's η_min + (η_max − η_min)(1 + cos(πT_cur/T_i))/2)
// and base 1: 1 at 0, 0.55 at 5 and 20, 0.1 + 0.9(1 + cos(0.9π))/2 at 9.
func TestSchedules(t *testing.T) {
	ms := MultiStep{Milestones: []int{60, 120, 160}, Gamma: 0.2}
	for e, want := range map[int]float64{0: 0.01, 59: 0.01, 60: 0.002, 119: 0.002, 120: 0.0004, 160: 0.00008, 199: 0.00008} {
		got := ms.LR(0.01, e)
		assert.InDelta(t, want, got, 1e-15, "multistep epoch %d: %v, want %v", e, got, want)
	}
	cw := CosineWarmRestarts{T0: 10, TMult: 2}
	for e, want := range map[int]float64{0: 1, 5: 0.5, 10: 1, 20: 0.5, 30: 1} {
		got := cw.LR(1, e)
		assert.InDelta(t, want, got, 1e-12, "cosine epoch %d: %v, want %v", e, got, want)
	}
	if got := cw.LR(1, 9); !(got > 0 && got < 0.05) {
		t.Errorf("cosine epoch 9: %v, want near 0 at the end of the first cycle", got)
	}
	cm := CosineWarmRestarts{T0: 10, TMult: 2, EtaMin: 0.1}
	for e, want := range map[int]float64{0: 1, 5: 0.55, 9: 0.1 + 0.9*(1+math.Cos(0.9*math.Pi))/2, 10: 1, 20: 0.55} {
		got := cm.LR(1, e)
		assert.InDelta(t, want, got, 1e-12, "cosine with η_min 0.1, epoch %d: %v, want %v", e, got, want)
	}
	if err := (MultiStep{Milestones: []int{5, 5}, Gamma: 0.1}).Validate(); err == nil {
		t.Error("repeated milestone accepted")
	}
}
