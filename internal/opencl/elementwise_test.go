package opencl_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/llpfc/llpfc/internal/opencl"
)

// unaryRef is the test's own definition of each unary operation on a
// float32, in float64 (gorgonia's thresholds for sigmoid and softplus).
func unaryRef(op opencl.UnaryOp, x float32) float64 {
	v := float64(x)
	switch op {
	case opencl.Neg:
		return -v
	case opencl.Abs:
		return math.Abs(v)
	case opencl.Sign:
		if v < 0 {
			return -1
		}
		if v > 0 {
			return 1
		}
		return v
	case opencl.SignScalar:
		if math.Signbit(v) {
			return -1
		}
		return 1
	case opencl.Exp:
		return math.Exp(v)
	case opencl.Log1p:
		return math.Log1p(v)
	case opencl.Ln:
		return math.Log(v)
	case opencl.Inv:
		return 1 / v
	case opencl.Sqrt:
		return math.Sqrt(v)
	case opencl.Square:
		return float64(x * x) // rounded to float32, as x·x in float32
	case opencl.Tanh:
		return math.Tanh(v)
	case opencl.Sigmoid:
		if x < -88 {
			return 0
		}
		if x > 15 {
			return 1
		}
		return 1 / (1 + math.Exp(-v))
	case opencl.Softplus:
		if x < -103 {
			return 0
		}
		if x > 14 {
			return v
		}
		return math.Log1p(math.Exp(v))
	}
	panic(op)
}

// unaryInputs draws n inputs inside op's domain, plus the thresholds of
// sigmoid and softplus.
func unaryInputs(t *testing.T, op opencl.UnaryOp, n int) []float32 {
	rng := newRNG(t)
	switch op {
	case opencl.Ln, opencl.Sqrt:
		return randn(rng, n, 1e-3, 50)
	case opencl.Log1p:
		return randn(rng, n, -0.9, 50)
	case opencl.Exp:
		return randn(rng, n, -20, 20)
	case opencl.Inv:
		x := randn(rng, n, 0.1, 10)
		for i := range x {
			if i%2 == 1 {
				x[i] = -x[i]
			}
		}
		return x
	case opencl.Sigmoid:
		x := randn(rng, n, -30, 30)
		edges := []float32{-100, -88.5, -50, 0, 14.5, 15, 15.5, 16, 100}
		copy(x, edges[:min(n, len(edges))])
		return x
	case opencl.Softplus:
		x := randn(rng, n, -30, 30)
		edges := []float32{-200, -103.5, -80, 0, 13.9, 14, 14.5, 100}
		copy(x, edges[:min(n, len(edges))])
		return x
	}
	return randn(rng, n, -5, 5)
}

func TestUnaryOps(t *testing.T) {
	l := testLib(t)
	for op := opencl.Neg; op <= opencl.Log1p; op++ {
		for _, n := range oddSizes {
			t.Run(fmt.Sprintf("%v/n=%d", op, n), func(t *testing.T) {
				x := unaryInputs(t, op, n)
				xb, yb := upload(t, l, x), alloc(t, l, n)
				must(t, l.Unary(op, xb, yb, n))
				got := download(t, yb, n)
				want := make([]float64, n)
				for i, v := range x {
					want[i] = unaryRef(op, v)
				}
				checkClose(t, op.String(), got, want, nil)
			})
		}
	}
}

// TestUnaryInPlaceAndEdges: y may be x; sign, abs, neg and square on ±0,
// ±Inf and NaN follow gorgonia's definitions exactly.
func TestUnaryInPlaceAndEdges(t *testing.T) {
	l := testLib(t)
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	negZero := float32(math.Copysign(0, -1))
	edges := []float32{0, negZero, inf, -inf, nan, 1, -1, 3}
	for _, op := range []opencl.UnaryOp{opencl.Neg, opencl.Abs, opencl.Sign, opencl.SignScalar, opencl.Square} {
		xb := upload(t, l, edges)
		must(t, l.Unary(op, xb, xb, len(edges)))
		got := download(t, xb, len(edges))
		want := make([]float32, len(edges))
		for i, v := range edges {
			want[i] = float32(unaryRef(op, v))
		}
		checkExact(t, op.String(), got, want)
	}
}

func binaryRef(op opencl.BinaryOp, a, b float32) float64 {
	x, y := float64(a), float64(b)
	cmp := func(c bool) float64 {
		if c {
			return 1
		}
		return 0
	}
	switch op {
	case opencl.Add:
		return x + y
	case opencl.Sub:
		return x - y
	case opencl.Mul:
		return x * y
	case opencl.Div:
		return x / y
	case opencl.Lt:
		return cmp(a < b)
	case opencl.Eq:
		return cmp(a == b)
	case opencl.Gte:
		return cmp(a >= b)
	case opencl.Gt:
		return cmp(a > b)
	case opencl.Lte:
		return cmp(a <= b)
	case opencl.Ne:
		return cmp(a != b)
	}
	panic(op)
}

// binaryCase runs op on random operands (values on a coarse grid, so the
// comparisons meet ties) with broadcast bc and returns the inputs as the
// kernel saw them and its output.
func binaryCase(t *testing.T, l *opencl.Lib, op opencl.BinaryOp, bc opencl.Broadcast, n int) (a, b, got []float32) {
	rng := newRNG(t)
	na, nb := n, n
	if bc == opencl.ScalarA {
		na = 1
	}
	if bc == opencl.ScalarB {
		nb = 1
	}
	grid := func(m int) []float32 {
		x := randn(rng, m, -4, 4)
		for i := range x {
			x[i] = float32(math.Round(float64(x[i])*2) / 2)
			if op == opencl.Div && x[i] == 0 {
				x[i] = 0.5
			}
		}
		return x
	}
	a, b = grid(na), grid(nb)
	yb := alloc(t, l, n)
	must(t, l.Binary(op, upload(t, l, a), upload(t, l, b), yb, n, bc))
	return a, b, download(t, yb, n)
}

func TestBinaryOps(t *testing.T) {
	l := testLib(t)
	for op := opencl.Add; op <= opencl.Ne; op++ {
		for _, bc := range []opencl.Broadcast{opencl.SameShape, opencl.ScalarA, opencl.ScalarB} {
			for _, n := range []int{1, 3, 17, 65, 1000} {
				t.Run(fmt.Sprintf("%v/bc=%d/n=%d", op, bc, n), func(t *testing.T) {
					a, b, got := binaryCase(t, l, op, bc, n)
					at := func(x []float32, i int) float32 {
						if len(x) == 1 {
							return x[0]
						}
						return x[i]
					}
					want := make([]float64, n)
					for i := range want {
						want[i] = binaryRef(op, at(a, i), at(b, i))
					}
					if op >= opencl.Lt {
						checkExact(t, op.String(), got, f32(want))
					} else {
						checkClose(t, op.String(), got, want, nil)
					}
					// Negative check: the operands swapped (b op a) is a
					// different result for −, ÷ and the order comparisons.
					if n >= 17 && (op == opencl.Sub || op == opencl.Div || op == opencl.Lt || op == opencl.Gte) {
						wrong := make([]float64, n)
						for i := range wrong {
							wrong[i] = binaryRef(op, at(b, i), at(a, i))
						}
						detects(t, "swapped operands", got, wrong, nil)
					}
				})
			}
		}
	}
}

// TestComparisonsNaN: comparisons with NaN give 0 (1 for ≠), so
// gorgonia's Rectify x ⊙ (x ≥ 0) zeroes NaN's mask.
func TestComparisonsNaN(t *testing.T) {
	l := testLib(t)
	nan := float32(math.NaN())
	a := []float32{nan, 1, nan, 0, float32(math.Copysign(0, -1))}
	b := []float32{1, nan, nan, float32(math.Copysign(0, -1)), 0}
	for op := opencl.Lt; op <= opencl.Ne; op++ {
		yb := alloc(t, l, len(a))
		must(t, l.Binary(op, upload(t, l, a), upload(t, l, b), yb, len(a), opencl.SameShape))
		want := make([]float64, len(a))
		for i := range a {
			want[i] = binaryRef(op, a[i], b[i])
		}
		checkExact(t, op.String(), download(t, yb, len(a)), f32(want))
	}
}

func TestAxpyScale(t *testing.T) {
	l := testLib(t)
	rng := newRNG(t)
	for _, n := range oddSizes {
		x, y := randn(rng, n, -2, 2), randn(rng, n, -2, 2)
		xb, yb, sb := upload(t, l, x), upload(t, l, y), alloc(t, l, n)
		must(t, l.Axpy(0.75, xb, yb, n))
		must(t, l.Scale(-1.5, xb, sb, n))
		wantY, wantS, wrong := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range x {
			wantY[i] = float64(y[i] + 0.75*x[i])
			wantS[i] = float64(-1.5 * x[i])
			wrong[i] = float64(0.75 * x[i]) // y overwritten instead of accumulated
		}
		got := download(t, yb, n)
		checkClose(t, fmt.Sprintf("axpy n=%d", n), got, wantY, nil)
		checkClose(t, fmt.Sprintf("scale n=%d", n), download(t, sb, n), wantS, nil)
		detects(t, "axpy overwriting y", got, wrong, nil)
	}
}

// TestNonFinite: the flag is set by one NaN or Inf anywhere (first, last,
// middle element), stays 0 on finite data, and gathers several buffers.
func TestNonFinite(t *testing.T) {
	l := testLib(t)
	ctx := l.Context()
	flag, err := ctx.Alloc(1)
	must(t, err)
	defer flag.Release()
	for _, n := range oddSizes {
		for _, pos := range []int{-1, 0, n / 2, n - 1} {
			for _, bad := range []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))} {
				x := randn(newRNG(t), n, -1e30, 1e30)
				if pos >= 0 {
					x[pos] = bad
				}
				must(t, flag.WriteInt32([]int32{0}))
				must(t, l.NonFinite(upload(t, l, x), n, flag))
				got := downloadInt(t, flag, 1)[0]
				if want := int32(0); pos >= 0 {
					want = 1
					if got != want {
						t.Errorf("n=%d, %v at %d: flag %d, want 1", n, bad, pos, got)
					}
				} else if got != want {
					t.Errorf("n=%d finite: flag %d, want 0", n, got)
				}
			}
		}
	}
	// Several buffers, one flag: a later finite buffer does not clear it.
	must(t, flag.WriteInt32([]int32{0}))
	must(t, l.NonFinite(upload(t, l, []float32{1, float32(math.NaN())}), 2, flag))
	must(t, l.NonFinite(upload(t, l, []float32{1, 2, 3}), 3, flag))
	if got := downloadInt(t, flag, 1)[0]; got != 1 {
		t.Errorf("flag after a NaN buffer then a finite one: %d, want 1", got)
	}
}

// TestElementwiseShapeErrors: a buffer shorter than n is an error before
// anything is enqueued.
func TestElementwiseShapeErrors(t *testing.T) {
	l := testLib(t)
	x, y := alloc(t, l, 4), alloc(t, l, 3)
	if err := l.Unary(opencl.Exp, x, y, 4); err == nil {
		t.Error("unary into a 3-element buffer with n = 4: no error")
	}
	if err := l.Binary(opencl.Add, x, y, x, 4, opencl.SameShape); err == nil {
		t.Error("binary with a 3-element operand and n = 4: no error")
	}
	if err := l.Binary(opencl.Add, x, y, x, 4, opencl.ScalarB); err != nil {
		t.Errorf("binary with a scalar operand: %v", err)
	}
}
