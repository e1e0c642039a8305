package cpu

import (
	"math"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/llpfc/llpfc/internal/par"
)

// elementwise are gorgonia's element-wise operations of two tensors of one
// shape that the plan runs on every core (par.Range) instead of through
// gorgonia, which runs them on one: WRN-16-4's and ResNet18's residual sums
// and their gradients, the ReLU masks of the dense layers — 16 ms of serial
// time a WRN-16-4 step at batch 32, most of the serial time left at 16
// threads (bench/NOTES.md, "Many cores as well as two"). Each value is the
// same single IEEE operation gorgonia's loop does, so the results are its
// bits (TestElementwiseIsGorgonias; gorgonia's division is not IEEE's —
// it gives +Inf for a negative number over +0 — so it stays gorgonia's).
var elementwise = map[string]elemOp{
	"gorgonia.elemBinOp(+)": {
		func(a, b, out []float32) {
			for i := range out {
				out[i] = a[i] + b[i]
			}
		},
		func(a []float32, s float32, out []float32) {
			for i := range out {
				out[i] = a[i] + s
			}
		}},
	"gorgonia.elemBinOp(-)": {
		func(a, b, out []float32) {
			for i := range out {
				out[i] = a[i] - b[i]
			}
		},
		func(a []float32, s float32, out []float32) {
			for i := range out {
				out[i] = a[i] - s
			}
		}},
	"gorgonia.elemBinOp(⊙)": {
		func(a, b, out []float32) {
			for i := range out {
				out[i] = a[i] * b[i]
			}
		},
		func(a []float32, s float32, out []float32) {
			for i := range out {
				out[i] = a[i] * s
			}
		}},
	"gorgonia.elemBinOp(>= same)": {
		func(a, b, out []float32) {
			for i := range out {
				out[i] = geq(a[i], b[i])
			}
		},
		func(a []float32, s float32, out []float32) { // gorgonia.Rectify's mask, x ≥ 0
			for i := range out {
				out[i] = geq(a[i], s)
			}
		}},
}

// geq is gorgonia's a >= b with the operands' type returned: 1 where it
// holds, else +0 (a NaN on either side included). The value is chosen
// without a branch — the bits under a comparison, which Go compiles to a
// conditional move — because a ReLU mask compares inputs whose sign is
// random, and a branch mispredicted on about every second element made
// the mask 5–10× slower than an addition over the same values
// (bench/NOTES.md, "The ReLU mask without a branch").
func geq(a, b float32) float32 {
	bits := uint32(0)
	if a >= b {
		bits = 0x3f800000 // 1.0
	}
	return math.Float32frombits(bits)
}

// elemOp is an element-wise operation of two tensors (tt) and of a tensor
// and a scalar on its right (ts).
type elemOp struct {
	tt func(a, b, out []float32)
	ts func(a []float32, s float32, out []float32)
}

// parallelElementwise computes the operation of kind on args into out (the
// plan's buffer for its value) when it is one of elementwise on a dense
// float32 tensor of out's shape, laid out contiguously, and either another
// such tensor or a float32 scalar; ok is false for anything else
// (broadcasts, a scalar on the left, views, float64), which gorgonia runs.
func parallelElementwise(kind string, out *tensor.Dense, args []gorgonia.Value) (gorgonia.Value, bool) {
	f, known := elementwise[kind]
	if !known || len(args) != 2 {
		return nil, false
	}
	a, ok := args[0].(*tensor.Dense)
	if !ok || !dense32(a, out) || !dense32(out, out) {
		return nil, false
	}
	x, z := a.Float32s(), out.Float32s()
	switch b := args[1].(type) {
	case *tensor.Dense:
		if !dense32(b, out) {
			return nil, false
		}
		y := b.Float32s()
		par.Range(len(z), func(lo, hi int) { f.tt(x[lo:hi], y[lo:hi], z[lo:hi]) })
	case *gorgonia.F32:
		s := float32(*b)
		par.Range(len(z), func(lo, hi int) { f.ts(x[lo:hi], s, z[lo:hi]) })
	default:
		return nil, false
	}
	return out, true
}

// dense32 reports whether t is a contiguous float32 tensor of like's shape
// and size.
func dense32(t, like *tensor.Dense) bool {
	return t.Dtype() == tensor.Float32 && t.Shape().Eq(like.Shape()) && !t.RequiresIterator() && len(t.Float32s()) == like.Shape().TotalSize()
}
