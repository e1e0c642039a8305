package optim

import (
	"fmt"
	"math"

	"github.com/llpfc/llpfc/internal/par"
	"github.com/llpfc/llpfc/internal/stepprof"
	"github.com/llpfc/llpfc/internal/vec"
)

// Config selects and parameterises an optimizer. The update rules
// follow PyTorch's torch.optim (the library of the paper's code), so the
// appendix's settings (App. `suppsec: exp`, "Architecture and
// Hyperparameters") mean the same thing here.
type Config struct {
	// Name is "sgd", "nesterov" (SGD with Nesterov momentum), "adam"
	// (weight decay as an L2 term added to the gradient) or "adamw"
	// (decoupled weight decay); empty is an error.
	Name string `json:"name"`
	// LR is the base learning rate (a Schedule may scale it per epoch); 0
	// is an error.
	LR float64 `json:"lr"`
	// Momentum μ and Dampening of SGD (the appendix uses μ = 0.9 and
	// dampening 0); zero means none (zero momentum is plain SGD).
	Momentum  float64 `json:"momentum"`
	Dampening float64 `json:"dampening"`
	// WeightDecay λ; zero means none.
	WeightDecay float64 `json:"weight_decay"`
	// Beta1, Beta2 and Eps of Adam/AdamW (zero values mean PyTorch's
	// defaults 0.9, 0.999, 1e-8).
	Beta1 float64 `json:"beta1"`
	Beta2 float64 `json:"beta2"`
	Eps   float64 `json:"eps"`
}

// withDefaults fills Adam's defaults.
func (c Config) withDefaults() Config {
	if c.Name == "adam" || c.Name == "adamw" {
		if c.Beta1 == 0 {
			c.Beta1 = 0.9
		}
		if c.Beta2 == 0 {
			c.Beta2 = 0.999
		}
		if c.Eps == 0 {
			c.Eps = 1e-8
		}
	}
	return c
}

// Validate checks the configuration and names the offending field.
func (c Config) Validate() error {
	c = c.withDefaults()
	bad := func(field string, v float64, rule string) error {
		return fmt.Errorf("optimizer %q: %s = %v, want %s", c.Name, field, v, rule)
	}
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	switch c.Name {
	case "sgd", "nesterov", "adam", "adamw":
	default:
		return fmt.Errorf("optimizer %q: unknown (want sgd, nesterov, adam or adamw)", c.Name)
	}
	if !(c.LR > 0) || !finite(c.LR) {
		return bad("lr", c.LR, "> 0")
	}
	if !(c.WeightDecay >= 0) || !finite(c.WeightDecay) {
		return bad("weight_decay", c.WeightDecay, "≥ 0")
	}
	switch c.Name {
	case "sgd", "nesterov":
		if !(c.Momentum >= 0 && c.Momentum < 1) {
			return bad("momentum", c.Momentum, "in [0, 1)")
		}
		if !(c.Dampening >= 0 && c.Dampening <= 1) {
			return bad("dampening", c.Dampening, "in [0, 1]")
		}
		if c.Name == "nesterov" && (c.Momentum == 0 || c.Dampening != 0) {
			return fmt.Errorf("optimizer nesterov: momentum = %v, dampening = %v; want momentum > 0 and dampening 0 (as PyTorch requires)", c.Momentum, c.Dampening)
		}
	default:
		if !(c.Beta1 >= 0 && c.Beta1 < 1) {
			return bad("beta1", c.Beta1, "in [0, 1)")
		}
		if !(c.Beta2 >= 0 && c.Beta2 < 1) {
			return bad("beta2", c.Beta2, "in [0, 1)")
		}
		if !(c.Eps > 0) {
			return bad("eps", c.Eps, "> 0")
		}
	}
	return nil
}

// State is the optimizer's full state, saved in checkpoints:
// the step count and, per parameter tensor, the SGD momentum buffer or
// Adam's first and second moments.
type State struct {
	Step int64
	Buf  [][]float32 // SGD momentum buffers
	M, V [][]float32 // Adam moments
}

// Optimizer updates float32 parameters in place from their gradients.
type Optimizer struct {
	cfg   Config
	state State
}

// New returns an optimizer for parameter tensors of the given sizes.
func New(cfg Config, sizes []int) (*Optimizer, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	o := &Optimizer{cfg: cfg}
	alloc := func() [][]float32 {
		b := make([][]float32, len(sizes))
		for i, n := range sizes {
			b[i] = make([]float32, n)
		}
		return b
	}
	switch cfg.Name {
	case "sgd", "nesterov":
		if cfg.Momentum != 0 {
			o.state.Buf = alloc()
		}
	default:
		o.state.M, o.state.V = alloc(), alloc()
	}
	return o, nil
}

// Config returns the configuration (with defaults filled in).
func (o *Optimizer) Config() Config { return o.cfg }

// State returns the optimizer's state (shared, not copied).
func (o *Optimizer) State() *State { return &o.state }

// SetState replaces the state with a copy of s after checking its shape.
func (o *Optimizer) SetState(s State) error {
	check := func(name string, dst, src [][]float32) error {
		if len(dst) != len(src) {
			return fmt.Errorf("optimizer state: %s has %d tensors, want %d", name, len(src), len(dst))
		}
		for i := range dst {
			if len(dst[i]) != len(src[i]) {
				return fmt.Errorf("optimizer state: %s[%d] has %d entries, want %d", name, i, len(src[i]), len(dst[i]))
			}
		}
		return nil
	}
	for _, c := range []struct {
		n        string
		dst, src [][]float32
	}{{"momentum buffer", o.state.Buf, s.Buf}, {"first moment", o.state.M, s.M}, {"second moment", o.state.V, s.V}} {
		if err := check(c.n, c.dst, c.src); err != nil {
			return err
		}
	}
	if s.Step < 0 {
		return fmt.Errorf("optimizer state: step %d, want ≥ 0", s.Step)
	}
	o.state.Step = s.Step
	for i := range s.Buf {
		copy(o.state.Buf[i], s.Buf[i])
	}
	for i := range s.M {
		copy(o.state.M[i], s.M[i])
		copy(o.state.V[i], s.V[i])
	}
	return nil
}

// ProfileRegion names the update in a step profile (internal/stepprof).
const ProfileRegion = "optimizer update"

// stepBytes returns the bytes an update reads and writes: the parameters
// (read and written), the gradients (read), and each state buffer (read and
// written).
func (o *Optimizer) stepBytes(params [][]float32) int64 {
	var n int64
	for _, p := range params {
		n += int64(len(p))
	}
	passes := int64(3) // θ read and written, g read
	switch {
	case o.cfg.Name != "sgd" && o.cfg.Name != "nesterov":
		passes += 4 // m and v
	case o.cfg.Momentum != 0:
		passes += 2 // the momentum buffer
	}
	return 4 * n * passes
}

// Step applies one update with learning rate lr to params (in place) from
// grads (same layout), following PyTorch:
//
// SGD: d = g + λθ; with momentum μ, b ← d on the first step and
// b ← μb + (1−dampening)d after; d ← d + μb (Nesterov) or d ← b; θ ← θ − lr·d.
//
// Adam: g ← g + λθ (adam) or θ ← θ(1 − lr·λ) (adamw); m ← β₁m + (1−β₁)g;
// v ← β₂v + (1−β₂)g²; θ ← θ − lr/(1−β₁ᵗ) · m / (√v/√(1−β₂ᵗ) + ε).
func (o *Optimizer) Step(params, grads [][]float32, lr float64) error {
	if len(params) != len(grads) {
		return fmt.Errorf("optimizer step: %d parameter tensors, %d gradients", len(params), len(grads))
	}
	c := o.cfg
	if stepprof.On() {
		defer stepprof.Begin(ProfileRegion, o.stepBytes(params)).End()
	}
	sizes := make([]int, len(params))
	for k, p := range params {
		if len(grads[k]) != len(p) {
			return fmt.Errorf("optimizer step: parameter %d has %d entries, gradient %d", k, len(p), len(grads[k]))
		}
		sizes[k] = len(p)
	}
	o.state.Step++
	lr32, wd := float32(lr), float32(c.WeightDecay)
	// Every parameter's values in one parallel loop (par.Ranges): value by
	// value, so the split does not change a bit.
	switch c.Name {
	case "sgd", "nesterov":
		mu, damp := float32(c.Momentum), float32(1-c.Dampening)
		nesterov := c.Name == "nesterov"
		first := o.state.Step == 1
		if mu == 0 {
			par.Ranges(sizes, func(k, lo, hi int) {
				p, g := params[k], grads[k]
				for i := lo; i < hi; i++ {
					p[i] -= lr32 * (g[i] + wd*p[i])
				}
			})
			break
		}
		par.Ranges(sizes, func(k, lo, hi int) {
			p, g, b := params[k], grads[k], o.state.Buf[k]
			for i := lo; i < hi; i++ {
				d := g[i] + wd*p[i]
				if first {
					b[i] = d
				} else {
					b[i] = mu*b[i] + damp*d
				}
				if nesterov {
					d += mu * b[i]
				} else {
					d = b[i]
				}
				p[i] -= lr32 * d
			}
		})
	default:
		b1, b2 := float32(c.Beta1), float32(c.Beta2)
		t := float64(o.state.Step)
		stepSize := float32(lr / (1 - math.Pow(c.Beta1, t)))
		bc2 := float32(math.Sqrt(1 - math.Pow(c.Beta2, t)))
		// One update value by value, in AVX2 where the processor has it
		// (internal/vec.Adam: the same bits as the Go loop it replaced).
		coef := &vec.AdamCoef{B1: b1, B2: b2, StepSize: stepSize, BC2: bc2,
			Eps: float32(c.Eps), WD: wd, Decay: 1 - lr32*wd, Decoupled: c.Name == "adamw"}
		par.Ranges(sizes, func(k, lo, hi int) {
			p, g, m, v := params[k], grads[k], o.state.M[k], o.state.V[k]
			vec.Adam(p[lo:hi], g[lo:hi], m[lo:hi], v[lo:hi], coef)
		})
	}
	return nil
}
