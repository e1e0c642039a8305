package cpu

import (
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
var elementwise = map[string]func(a, b, out []float32){
	"gorgonia.elemBinOp(+)": func(a, b, out []float32) {
		for i := range out {
			out[i] = a[i] + b[i]
		}
	},
	"gorgonia.elemBinOp(-)": func(a, b, out []float32) {
		for i := range out {
			out[i] = a[i] - b[i]
		}
	},
	"gorgonia.elemBinOp(⊙)": func(a, b, out []float32) {
		for i := range out {
			out[i] = a[i] * b[i]
		}
	},
	"gorgonia.elemBinOp(>= same)": func(a, b, out []float32) {
		for i := range out {
			out[i] = 0
			if a[i] >= b[i] {
				out[i] = 1
			}
		}
	},
}

// parallelElementwise computes the operation of kind on args into out (the
// plan's buffer for its value) when it is one of elementwise on two dense
// float32 tensors of out's shape, laid out contiguously; ok is false for
// anything else (broadcasts, scalars, views, float64), which gorgonia runs.
func parallelElementwise(kind string, out *tensor.Dense, args []gorgonia.Value) (gorgonia.Value, bool) {
	f := elementwise[kind]
	if f == nil || len(args) != 2 {
		return nil, false
	}
	a, okA := args[0].(*tensor.Dense)
	b, okB := args[1].(*tensor.Dense)
	if !okA || !okB || a.Dtype() != tensor.Float32 || b.Dtype() != tensor.Float32 || out.Dtype() != tensor.Float32 ||
		!a.Shape().Eq(out.Shape()) || !b.Shape().Eq(out.Shape()) || a.RequiresIterator() || b.RequiresIterator() || out.RequiresIterator() {
		return nil, false
	}
	x, y, z := a.Float32s(), b.Float32s(), out.Float32s()
	if len(x) != len(z) || len(y) != len(z) {
		return nil, false
	}
	par.Range(len(z), func(lo, hi int) { f(x[lo:hi], y[lo:hi], z[lo:hi]) })
	return out, true
}
