package opencl

import (
	"fmt"
	"math"
)

// MaxPool2 enqueues training/nn/pool.go's fused 2×2 stride-2 max pool
// (poolOp), of ReLU(x) when relu is set: x holds planes (N·C) planes of
// h×w, y planes of (h/2)×(w/2); arg (int32, y's size) receives, per output,
// the index within its plane of the first maximum in row-major order, or
// −1 where the ReLU cut the output to 0.
func (l *Lib) MaxPool2(x, y, arg *Buffer, planes, h, w int, relu bool) error {
	const op = "max pool 2×2"
	if err := positive(op, ni("planes", planes)); err != nil {
		return err
	}
	if h < 2 || w < 2 {
		return fmt.Errorf("opencl: %s: %d×%d planes, want H, W ≥ 2", op, h, w)
	}
	no := planes * (h / 2) * (w / 2)
	if err := need(op, planes*h*w, nb("x", x)); err != nil {
		return err
	}
	if err := need(op, no, nb("y", y), nb("arg", arg)); err != nil {
		return err
	}
	return l.elem("pool2_fwd", no, x, y, arg, planes, h, w, b2i(relu))
}

// MaxPool2Grad enqueues poolGradOp: dx (planes×h×w) = dy at the position
// each output took (arg from MaxPool2), 0 elsewhere.
func (l *Lib) MaxPool2Grad(dy, arg, dx *Buffer, planes, h, w int) error {
	const op = "max pool 2×2 gradient"
	if err := positive(op, ni("planes", planes)); err != nil {
		return err
	}
	if h < 2 || w < 2 {
		return fmt.Errorf("opencl: %s: %d×%d planes, want H, W ≥ 2", op, h, w)
	}
	no := planes * (h / 2) * (w / 2)
	if err := need(op, no, nb("dy", dy), nb("arg", arg)); err != nil {
		return err
	}
	if err := need(op, planes*h*w, nb("dx", dx)); err != nil {
		return err
	}
	return l.elem("pool2_bwd", planes*h*w, dy, arg, dx, planes, h, w)
}

// PoolGeom is the geometry of gorgonia's maxPoolOp on Planes (N·C) planes
// of H×W: a KH×KW window moved by StrideH, StrideW; window (ph, pw) starts
// at row ph·StrideH − PadH and column pw·StrideW − PadW (gorgonia's
// offsets: padNorth and padWest, or padSouth and padEast with explicit
// 4-value padding) and is clipped to the plane; OutH×OutW outputs (as
// gorgonia's calcShape computes them).
type PoolGeom struct {
	Planes, H, W, KH, KW, PadH, PadW, StrideH, StrideW, OutH, OutW int
}

func (g PoolGeom) check(op string) error {
	if err := positive(op, ni("Planes", g.Planes), ni("H", g.H), ni("W", g.W), ni("KH", g.KH), ni("KW", g.KW),
		ni("StrideH", g.StrideH), ni("StrideW", g.StrideW), ni("OutH", g.OutH), ni("OutW", g.OutW)); err != nil {
		return err
	}
	if g.PadH < 0 || g.PadW < 0 {
		return fmt.Errorf("opencl: %s: negative padding %d, %d", op, g.PadH, g.PadW)
	}
	return nil
}

func (g PoolGeom) args() []any {
	return []any{g.Planes, g.H, g.W, g.KH, g.KW, g.PadH, g.PadW, g.StrideH, g.StrideW, g.OutH, g.OutW}
}

// MaxPool enqueues gorgonia's maxPoolOp: y (Planes×OutH×OutW) = each
// window's maximum, starting from −MaxFloat32 and taking each value
// greater than the best so far in row-major order; mask (int32, y's size)
// receives its index within the plane (−1 when no value beat
// −MaxFloat32).
func (l *Lib) MaxPool(x, y, mask *Buffer, g PoolGeom) error {
	const op = "max pool"
	if err := g.check(op); err != nil {
		return err
	}
	no := g.Planes * g.OutH * g.OutW
	if err := need(op, g.Planes*g.H*g.W, nb("x", x)); err != nil {
		return err
	}
	if err := need(op, no, nb("y", y), nb("mask", mask)); err != nil {
		return err
	}
	return l.elem("maxpool_fwd", no, append([]any{x, y, mask}, g.args()...)...)
}

// MaxPoolGrad enqueues gorgonia's maxPoolDiffOp: dx (Planes×H×W) = the sum
// of the output gradients of the windows whose mask points at each value
// (overlapping windows add, in increasing (ph, pw) as the CPU's loop).
func (l *Lib) MaxPoolGrad(dy, mask, dx *Buffer, g PoolGeom) error {
	const op = "max pool gradient"
	if err := g.check(op); err != nil {
		return err
	}
	no := g.Planes * g.OutH * g.OutW
	if err := need(op, no, nb("dy", dy), nb("mask", mask)); err != nil {
		return err
	}
	if err := need(op, g.Planes*g.H*g.W, nb("dx", dx)); err != nil {
		return err
	}
	return l.elem("maxpool_bwd", g.Planes*g.H*g.W, append([]any{dy, mask, dx}, g.args()...)...)
}

// SGD is one step of SGD as training/optim/optim.go's Optimizer.Step applies it
// (PyTorch's rule): LR, WeightDecay, Momentum, Dampening, Nesterov; First
// marks the step that initialises the momentum buffer.
type SGD struct {
	LR, WeightDecay, Momentum, Dampening float64
	Nesterov, First                      bool
	Guard                                *Guard // nil: unguarded
}

// SGDStep enqueues one SGD update of p (n values) from g, with the
// momentum buffer buf (unused, and may be nil, when Momentum is 0): d =
// g + λp; buf = d on the first step, μ·buf + (1−dampening)·d after;
// d = d + μ·buf (Nesterov) or buf; p −= lr·d; in float32 as the CPU.
func (l *Lib) SGDStep(p, g, buf *Buffer, n int, h SGD) error {
	const op = "SGD step"
	if err := need(op, n, nb("p", p), nb("g", g)); err != nil {
		return err
	}
	if h.Momentum != 0 {
		if err := need(op, n, nb("momentum buffer", buf)); err != nil {
			return err
		}
	} else {
		buf = p // never read or written
	}
	guard, err := l.guardArgs(h.Guard)
	if err != nil {
		return err
	}
	return l.elem("sgd_step", n, append([]any{p, g, buf, n, float32(h.LR), float32(h.WeightDecay), float32(h.Momentum),
		float32(1 - h.Dampening), b2i(h.Nesterov), b2i(h.First)}, guard...)...)
}

// Adam is one step of Adam or AdamW (Decoupled) as Optimizer.Step applies
// it: Step is the step count t ≥ 1 after incrementing (bias corrections
// 1−β₁ᵗ and √(1−β₂ᵗ)).
type Adam struct {
	LR, WeightDecay, Beta1, Beta2, Eps float64
	Decoupled                          bool
	Step                               int64
	Guard                              *Guard // nil: unguarded
}

// AdamStep enqueues one Adam/AdamW update of p (n values) from g with the
// moments m and v: g += λp (Adam) or p ·= 1 − lr·λ (AdamW); m = β₁m +
// (1−β₁)g; v = β₂v + (1−β₂)g²; p −= lr/(1−β₁ᵗ)·m/(√v/√(1−β₂ᵗ) + ε); in
// float32 as the CPU, the two corrections computed in float64.
func (l *Lib) AdamStep(p, g, m, v *Buffer, n int, h Adam) error {
	const op = "Adam step"
	if h.Step < 1 {
		return fmt.Errorf("opencl: %s: step %d, want ≥ 1 (the count after this step)", op, h.Step)
	}
	if err := need(op, n, nb("p", p), nb("g", g), nb("m", m), nb("v", v)); err != nil {
		return err
	}
	t := float64(h.Step)
	stepSize := float32(h.LR / (1 - math.Pow(h.Beta1, t)))
	bc2 := float32(math.Sqrt(1 - math.Pow(h.Beta2, t)))
	guard, err := l.guardArgs(h.Guard)
	if err != nil {
		return err
	}
	return l.elem("adam_step", n, append([]any{p, g, m, v, n, float32(h.LR), float32(h.WeightDecay), float32(h.Beta1), float32(h.Beta2),
		float32(h.Eps), stepSize, bc2, b2i(h.Decoupled)}, guard...)...)
}
