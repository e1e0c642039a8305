package opencl_test

import (
	"fmt"
	"math"
	"testing"
)

// repeatRef is numpy.repeat along the middle axis of outer×dim×inner.
func repeatRef(x []float32, outer, dim, inner, rep int) []float32 {
	var out []float32
	for o := 0; o < outer; o++ {
		for d := 0; d < dim; d++ {
			for r := 0; r < rep; r++ {
				out = append(out, x[(o*dim+d)*inner:(o*dim+d+1)*inner]...)
			}
		}
	}
	return out
}

func TestRepeat(t *testing.T) {
	l := testLib(t)
	rng := newRNG(t)
	for _, outer := range []int{1, 3, 17} {
		for _, dim := range []int{1, 3, 33} {
			for _, inner := range []int{1, 3, 17} {
				for _, rep := range []int{1, 2, 5} {
					n := outer * dim * inner
					x := randn(rng, n, -1, 1)
					yb := alloc(t, l, n*rep)
					must(t, l.Repeat(upload(t, l, x), yb, outer, dim, inner, rep))
					got := download(t, yb, n*rep)
					name := fmt.Sprintf("repeat %d×%d×%d ×%d", outer, dim, inner, rep)
					checkExact(t, name, got, repeatRef(x, outer, dim, inner, rep))
					if dim > 1 && rep > 1 {
						// numpy.tile (the whole axis repeated) instead of repeat
						var tiled []float32
						for o := 0; o < outer; o++ {
							for r := 0; r < rep; r++ {
								tiled = append(tiled, x[o*dim*inner:(o+1)*dim*inner]...)
							}
						}
						if exactMismatch(got, tiled) == "" {
							t.Errorf("%s: the check does not tell repeat from tile", name)
						}
					}
				}
			}
		}
	}
}

// transposeRef moves axis perm[k] of x to position k, element by element.
func transposeRef(x []float32, shape, perm []int) []float32 {
	d := len(shape)
	oshape := make([]int, d)
	for k := range perm {
		oshape[k] = shape[perm[k]]
	}
	out := make([]float32, len(x))
	coord := make([]int, d)
	for i := range x {
		rem := i
		for k := d - 1; k >= 0; k-- {
			coord[k] = rem % shape[k]
			rem /= shape[k]
		}
		o := 0
		for k := 0; k < d; k++ {
			o = o*oshape[k] + coord[perm[k]]
		}
		out[o] = x[i]
	}
	return out
}

func TestTranspose(t *testing.T) {
	l := testLib(t)
	rng := newRNG(t)
	cases := []struct{ shape, perm []int }{
		{[]int{3, 17}, []int{1, 0}},
		{[]int{1, 33}, []int{1, 0}},
		{[]int{65, 3}, []int{1, 0}},
		{[]int{3, 5, 7, 2}, []int{0, 2, 3, 1}},
		{[]int{2, 3, 17, 5}, []int{0, 3, 1, 2}},
		{[]int{1, 1, 3, 1}, []int{0, 2, 3, 1}},
		{[]int{2, 3, 4}, []int{2, 0, 1}},
		{[]int{2, 3, 1, 2, 3}, []int{4, 2, 0, 3, 1}},
		{[]int{17}, []int{0}},
	}
	for _, c := range cases {
		n := 1
		for _, s := range c.shape {
			n *= s
		}
		x := randn(rng, n, -1, 1)
		yb := alloc(t, l, n)
		must(t, l.Transpose(upload(t, l, x), yb, c.shape, c.perm))
		got := download(t, yb, n)
		name := fmt.Sprintf("transpose %v by %v", c.shape, c.perm)
		checkExact(t, name, got, transposeRef(x, c.shape, c.perm))
		inv := make([]int, len(c.perm))
		for k, p := range c.perm {
			inv[p] = k
		}
		// Negative check, where the inverse permutation moves data at all
		// differently (not for axes of size 1 only).
		wrong := transposeRef(x, c.shape, inv)
		if exactMismatch(transposeRef(x, c.shape, c.perm), wrong) != "" && exactMismatch(got, wrong) == "" {
			t.Errorf("%s: the check does not tell the permutation from its inverse", name)
		}
	}
	if err := l.Transpose(alloc(t, l, 6), alloc(t, l, 6), []int{2, 3}, []int{0, 0}); err == nil {
		t.Error("transpose with a repeated axis in the permutation: no error")
	}
}

// reduceRef sums (or takes the max of) x over axes (none: all), in
// float64, returning the result, the Σ|x| of each output, and the output
// length.
func reduceRef(x []float32, shape, axes []int, isMax bool) (want, scale []float64) {
	red := make([]bool, len(shape))
	for _, a := range axes {
		red[a] = true
	}
	if len(axes) == 0 {
		for i := range red {
			red[i] = true
		}
	}
	nout := 1
	for i, s := range shape {
		if !red[i] {
			nout *= s
		}
	}
	want, scale = make([]float64, nout), make([]float64, nout)
	seen := make([]bool, nout)
	coord := make([]int, len(shape))
	for i, v := range x {
		rem := i
		for k := len(shape) - 1; k >= 0; k-- {
			coord[k] = rem % shape[k]
			rem /= shape[k]
		}
		o := 0
		for k, s := range shape {
			if !red[k] {
				o = o*s + coord[k]
			}
		}
		if isMax {
			if !seen[o] || float64(v) > want[o] {
				want[o] = float64(v)
			}
			seen[o] = true
			continue
		}
		want[o] += float64(v)
		scale[o] += math.Abs(float64(v))
	}
	return want, scale
}

// subsets returns every subset of {0, …, d−1}.
func subsets(d int) [][]int {
	var out [][]int
	for m := 0; m < 1<<d; m++ {
		var s []int
		for k := 0; k < d; k++ {
			if m&(1<<k) != 0 {
				s = append(s, k)
			}
		}
		out = append(out, s)
	}
	return out
}

func TestSumMaxAxes(t *testing.T) {
	l := testLib(t)
	rng := newRNG(t)
	shapes := [][]int{{17}, {3, 33}, {1, 17}, {17, 1}, {3, 1, 17}, {2, 3, 5, 7}, {3, 17, 1, 4}}
	for _, shape := range shapes {
		n := 1
		for _, s := range shape {
			n *= s
		}
		x := randn(rng, n, -2, 2)
		xb := upload(t, l, x)
		for _, axes := range subsets(len(shape)) {
			for _, isMax := range []bool{false, true} {
				want, scale := reduceRef(x, shape, axes, isMax)
				yb := alloc(t, l, len(want))
				op, name := l.Sum, fmt.Sprintf("sum %v along %v", shape, axes)
				if isMax {
					op, name = l.Max, fmt.Sprintf("max %v along %v", shape, axes)
				}
				must(t, op(xb, yb, shape, axes))
				got := download(t, yb, len(want))
				if isMax {
					checkExact(t, name, got, f32(want))
				} else {
					checkClose(t, name, got, want, scale)
				}
			}
		}
	}
}

// TestSumLarge covers the two-stage reduction (fewer outputs than a GPU's
// wave of work-groups, many values each: a convolution's bias gradient of
// 96 channels too) and checks that summing along the wrong axis of a
// square matrix is detected.
func TestSumLarge(t *testing.T) {
	l := testLib(t)
	rng := newRNG(t)
	for _, c := range []struct{ shape, axes []int }{
		{[]int{70001}, nil},
		{[]int{3, 20011}, []int{1}},
		{[]int{20011, 3}, []int{0}},
		{[]int{5, 4099, 3}, []int{0, 2}},
		{[]int{9, 96, 1025}, []int{0, 2}},
	} {
		n := 1
		for _, s := range c.shape {
			n *= s
		}
		x := randn(rng, n, -1, 1)
		for _, isMax := range []bool{false, true} {
			want, scale := reduceRef(x, c.shape, c.axes, isMax)
			yb := alloc(t, l, len(want))
			op := l.Sum
			if isMax {
				op = l.Max
			}
			must(t, op(upload(t, l, x), yb, c.shape, c.axes))
			got := download(t, yb, len(want))
			if isMax {
				checkExact(t, fmt.Sprintf("max %v along %v", c.shape, c.axes), got, f32(want))
			} else {
				checkClose(t, fmt.Sprintf("sum %v along %v", c.shape, c.axes), got, want, scale)
			}
		}
	}
	x := randn(rng, 17*17, -1, 1)
	yb := alloc(t, l, 17)
	must(t, l.Sum(upload(t, l, x), yb, []int{17, 17}, []int{0}))
	got := download(t, yb, 17)
	want, scale := reduceRef(x, []int{17, 17}, []int{0}, false)
	checkClose(t, "sum 17×17 along 0", got, want, scale)
	wrong, _ := reduceRef(x, []int{17, 17}, []int{1}, false)
	detects(t, "a sum along the other axis", got, wrong, scale)
}

// softmaxRef is the softmax of x along the middle axis of outer×dim×inner.
func softmaxRef(x []float32, outer, dim, inner int) []float64 {
	out := make([]float64, len(x))
	for o := 0; o < outer; o++ {
		for i := 0; i < inner; i++ {
			at := func(j int) int { return (o*dim+j)*inner + i }
			m := math.Inf(-1)
			for j := 0; j < dim; j++ {
				m = math.Max(m, float64(x[at(j)]))
			}
			s := 0.0
			for j := 0; j < dim; j++ {
				s += math.Exp(float64(x[at(j)]) - m)
			}
			for j := 0; j < dim; j++ {
				out[at(j)] = math.Exp(float64(x[at(j)])-m) / s
			}
		}
	}
	return out
}

func TestSoftmax(t *testing.T) {
	l := testLib(t)
	rng := newRNG(t)
	for _, outer := range []int{1, 3, 65} {
		for _, dim := range []int{1, 3, 10, 33} {
			for _, inner := range []int{1, 3} {
				n := outer * dim * inner
				x := randn(rng, n, -8, 8)
				// rows far apart: only a per-row shift keeps exp in range
				for k := range x {
					x[k] += float32(200 * ((k / (dim * inner)) % 3))
				}
				yb := alloc(t, l, n)
				must(t, l.Softmax(upload(t, l, x), yb, outer, dim, inner))
				got := download(t, yb, n)
				name := fmt.Sprintf("softmax %d×%d×%d", outer, dim, inner)
				checkClose(t, name, got, softmaxRef(x, outer, dim, inner), nil)
				if dim > 1 && inner > 1 {
					detects(t, "softmax along the wrong axis", got, softmaxRef(x, outer*dim, inner, 1), nil)
				}
			}
		}
	}
}

func TestSoftmaxGrad(t *testing.T) {
	l := testLib(t)
	rng := newRNG(t)
	for _, outer := range []int{1, 3, 65} {
		for _, dim := range []int{1, 3, 10, 33} {
			for _, inner := range []int{1, 3} {
				n := outer * dim * inner
				y := f32(softmaxRef(randn(rng, n, -3, 3), outer, dim, inner))
				g := randn(rng, n, -1, 1)
				dxb := alloc(t, l, n)
				must(t, l.SoftmaxGrad(upload(t, l, y), upload(t, l, g), dxb, outer, dim, inner))
				got := download(t, dxb, n)
				want, scale, wrong := make([]float64, n), make([]float64, n), make([]float64, n)
				for o := 0; o < outer; o++ {
					for i := 0; i < inner; i++ {
						at := func(j int) int { return (o*dim+j)*inner + i }
						s, sa := 0.0, 0.0
						for j := 0; j < dim; j++ {
							s += float64(y[at(j)]) * float64(g[at(j)])
							sa += math.Abs(float64(y[at(j)]) * float64(g[at(j)]))
						}
						for j := 0; j < dim; j++ {
							k := at(j)
							want[k] = (float64(g[k]) - s) * float64(y[k])
							scale[k] = (math.Abs(float64(g[k])) + sa) * float64(y[k])
							wrong[k] = float64(g[k]) * float64(y[k]) // the Σ y⊙g term dropped
						}
					}
				}
				name := fmt.Sprintf("softmax gradient %d×%d×%d", outer, dim, inner)
				checkClose(t, name, got, want, scale)
				if dim > 1 {
					detects(t, "the gradient without its Σ y⊙g term", got, wrong, scale)
				}
			}
		}
	}
}

func argmaxRef(x []float32, rows, cols int, lastOnTies bool) []int32 {
	out := make([]int32, rows)
	for i := 0; i < rows; i++ {
		best := 0
		for c := 1; c < cols; c++ {
			v, b := x[i*cols+c], x[i*cols+best]
			if v > b || (lastOnTies && v == b) {
				best = c
			}
		}
		out[i] = int32(best)
	}
	return out
}

func TestArgmaxRows(t *testing.T) {
	l := testLib(t)
	rng := newRNG(t)
	for _, rows := range []int{1, 3, 17, 65} {
		for _, cols := range []int{1, 2, 10, 33} {
			x := randn(rng, rows*cols, -2, 2)
			for k := range x {
				x[k] = float32(math.Round(float64(x[k]))) // ties
			}
			if rows > 2 && cols > 2 {
				x[cols+1] = float32(math.NaN()) // row 1: a NaN never wins
				x[2*cols] = float32(math.NaN()) // row 2: a NaN first keeps 0
			}
			ob := alloc(t, l, rows)
			must(t, l.ArgmaxRows(upload(t, l, x), ob, rows, cols))
			got := downloadInt(t, ob, rows)
			want := argmaxRef(x, rows, cols, false)
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("argmax %d×%d: got %v, want %v", rows, cols, got, want)
			}
			if rows >= 17 && cols >= 10 && fmt.Sprint(got) == fmt.Sprint(argmaxRef(x, rows, cols, true)) {
				t.Errorf("argmax %d×%d: the check does not tell the first maximum from the last", rows, cols)
			}
		}
	}
}

// TestReduceShapeErrors: bad axes and short buffers are errors.
func TestReduceShapeErrors(t *testing.T) {
	l := testLib(t)
	x, y := alloc(t, l, 6), alloc(t, l, 6)
	for _, c := range []struct {
		shape, axes []int
	}{{[]int{2, 3}, []int{2}}, {[]int{2, 4}, []int{0}}, {nil, nil}} {
		if err := l.Sum(x, y, c.shape, c.axes); err == nil {
			t.Errorf("sum of %v along %v: no error", c.shape, c.axes)
		}
	}
}
