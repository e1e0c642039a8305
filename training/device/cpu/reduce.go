package cpu

import (
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/llpfc/llpfc/internal/par"
)

// The dense layers' bias operations the plan runs on every core instead of
// through gorgonia, which runs them on one: the bias gradient, a sum over
// the minibatch's rows (sumOp along axis 0), and the bias's broadcast to
// every row (repeatOp along axis 0). In the mlp's step at 16 threads they
// were 0.34 of the 0.9 ms of serial time the many-core model counts
// (bench/NOTES.md, "The dense layers' bias on every core"). Each gives
// gorgonia's bits: the sum of a column is the same float32 additions in
// the same order, row 0 first (tensor's ReduceFirst), and the broadcast
// is copies (TestBiasOpsAreGorgonias).

// sumGrain is the fewest values of the input a goroutine sums: below 2·sumGrain
// the sum runs on one.
const sumGrain = 1 << 15

// parallelSum0 computes gorgonia's sumOp along axis 0 of a contiguous
// float32 tensor of two or more axes into a new tensor of shape (the
// node's), each chunk of columns on a goroutine; ok is false for anything
// else, which gorgonia runs.
func parallelSum0(kind string, shape tensor.Shape, args []gorgonia.Value) (gorgonia.Value, bool) {
	if kind != "gorgonia.sumOp(Σ[0])" || len(args) != 1 {
		return nil, false
	}
	a, ok := args[0].(*tensor.Dense)
	if !ok || a.Dtype() != tensor.Float32 || a.RequiresIterator() || a.Dims() < 2 {
		return nil, false
	}
	rows, n := a.Shape()[0], a.Shape().TotalSize()
	x := a.Float32s()
	if rows < 1 || len(x) < n || shape.TotalSize() != n/rows {
		return nil, false
	}
	cols := n / rows
	out := tensor.New(tensor.WithShape(shape.Clone()...), tensor.Of(tensor.Float32))
	z := out.Float32s()
	sum := func(lo, hi int) {
		zz := z[lo:hi]
		copy(zz, x[lo:hi])
		for r := 1; r < rows; r++ {
			row := x[r*cols+lo : r*cols+hi]
			for j := range zz {
				zz[j] += row[j]
			}
		}
	}
	// chunks of at least 16 columns (a cache line of the output each) and
	// sumGrain values
	nc := min(n/sumGrain, cols/16)
	if nc < 2 {
		sum(0, cols)
		return out, true
	}
	par.Chunks(nc, func(j, _ int) { sum(par.ChunkBounds(j, nc, cols)) })
	return out, true
}

// parallelRepeat0 computes gorgonia's repeatOp along axis 0 of a
// contiguous float32 row (1×M) into out (R×M, the plan's buffer): R
// copies of the row, the repeat count (args[1]) R; ok is false for
// anything else, which gorgonia runs.
func parallelRepeat0(kind string, out *tensor.Dense, args []gorgonia.Value) (gorgonia.Value, bool) {
	if kind != "gorgonia.repeatOp(Repeat0)" || len(args) != 2 {
		return nil, false
	}
	a, ok := args[0].(*tensor.Dense)
	if !ok || a.Dtype() != tensor.Float32 || a.RequiresIterator() || a.Dims() != 2 || a.Shape()[0] != 1 ||
		out.Dtype() != tensor.Float32 || out.RequiresIterator() || out.Dims() != 2 || out.Shape()[1] != a.Shape()[1] {
		return nil, false
	}
	reps, m := out.Shape()[0], a.Shape()[1]
	if rep, ok := wholeNumber(args[1]); !ok || rep != reps {
		return nil, false
	}
	x, z := a.Float32s(), out.Float32s()
	if len(x) < m || len(z) < reps*m {
		return nil, false
	}
	x, z = x[:m], z[:reps*m]
	par.Range(len(z), func(lo, hi int) {
		for i := lo; i < hi; {
			j := i % m
			i += copy(z[i:hi], x[j:])
		}
	})
	return out, true
}

// wholeNumber reads a repeat count: a scalar value holding a whole number
// (gorgonia's broadcasts pass a sizeOp's result, of the tensor's type).
func wholeNumber(v gorgonia.Value) (int, bool) {
	var f float64
	switch s := v.(type) {
	case *gorgonia.F32:
		f = float64(*s)
	case *gorgonia.F64:
		f = float64(*s)
	case *gorgonia.I:
		return int(*s), true
	case *gorgonia.I64:
		return int(*s), true
	default:
		return 0, false
	}
	if f != float64(int(f)) {
		return 0, false
	}
	return int(f), true
}
