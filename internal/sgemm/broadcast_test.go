package sgemm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/require"
)

// withSubnormals returns a random rows×cols operand (stride ld) whose
// values are normal, zero (half of them, as after dropout or ReLU) or, with
// probability p, subnormal of either sign.
func withSubnormals(r *rand.Rand, rows, ld int, p float64) []float32 {
	x := make([]float32, max(rows*ld, 1))
	for i := range x {
		switch u := r.Float64(); {
		case u < p:
			x[i] = math.Float32frombits(uint32(1+r.IntN(0x7fffff)) | r.Uint32()&0x80000000)
		case u < p+0.5:
			x[i] = float32(2*r.Float64() - 1)
		}
	}
	return x
}

// TestBroadcastBKeepsTheBits: a product whose op(B) holds subnormals and
// op(A) none is computed the other way round (the hook sees it), and every
// value of C has the bits it has the usual way round (broadcastOn off) —
// on every kernel, transposed form and stride, k over one to three
// k-blocks, C cut into one or several chunks, at one to three threads. Any
// slip in the transposed product's operands, in the chunks' offsets or in
// the transpose's blocks and edges shows as a changed value.
func TestBroadcastBKeepsTheBits(t *testing.T) {
	defer SetKernel(Active())
	defer func(p int) { runtime.GOMAXPROCS(p) }(runtime.GOMAXPROCS(0))
	defer func(c int) { broadcastChunk = c }(broadcastChunk)
	for _, kern := range allKernels(t) {
		t.Run(kern.Name, func(t *testing.T) {
			SetKernel(kern)
			params := gopter.DefaultTestParametersWithSeed(21)
			params.MinSuccessfulTests = 50
			p := gopter.NewProperties(params)
			p.Property("the bits of the usual way round", prop.ForAll(func(v []any, seed uint64) string {
				shape := make([]int, len(v))
				for i := range v {
					shape[i] = v[i].(int)
				}
				m, n, k, pad := broadcastMinRows+shape[0], 1+shape[1], 1+shape[2], shape[3]
				tA, tB := shape[4]&1 == 1, shape[4]&2 == 2
				runtime.GOMAXPROCS(1 + shape[5])
				broadcastChunk = []int{1 << 17, 1 << 10, 1}[shape[6]]
				r := rand.New(rand.NewPCG(seed, 7))
				ar, ac, br, bc := m, k, k, n
				if tA {
					ar, ac = k, m
				}
				if tB {
					br, bc = n, k
				}
				lda, ldb, ldc := ac+pad, bc+pad, n+pad
				a := withSubnormals(r, ar, lda, 0)
				b := withSubnormals(r, br, ldb, 0.05)
				b[0] = 0x1p-140 // at least one
				got, want := make([]float32, m*ldc), make([]float32, m*ldc)
				calls := 0
				broadcastHook = func(int, int, int) { calls++ }
				defer func() { broadcastHook = nil }()
				Sgemm(tA, tB, m, n, k, 1, a, lda, b, ldb, 0, got, ldc)
				broadcastOn = false
				Sgemm(tA, tB, m, n, k, 1, a, lda, b, ldb, 0, want, ldc)
				broadcastOn = true
				if calls != 1 {
					return fmt.Sprintf("m=%d n=%d k=%d: computed the other way round %d times, want once", m, n, k, calls)
				}
				for i := range m {
					for j := range n {
						if g, w := math.Float32bits(got[i*ldc+j]), math.Float32bits(want[i*ldc+j]); g != w {
							return fmt.Sprintf("tA=%v tB=%v m=%d n=%d k=%d pad=%d threads=%d chunk=%d: c[%d,%d] bits %#x, want %#x",
								tA, tB, m, n, k, pad, runtime.GOMAXPROCS(0), broadcastChunk, i, j, g, w)
						}
					}
				}
				return ""
			}, gopter.CombineGens(gen.IntRange(0, 100), gen.IntRange(0, 40), gen.IntRange(0, 800),
				gen.IntRange(0, 3), gen.IntRange(0, 3), gen.IntRange(0, 2), gen.IntRange(0, 2)), gen.UInt64()))
			p.TestingRun(t)
		})
	}
}

// TestBroadcastBFirstChooses: which products are computed the other way
// round. Only α = 1 and β = 0 (either is applied to one operand or to C,
// and would round differently the other way round), from broadcastMinRows
// rows, op(B) holding a subnormal (anywhere in its rows, never in the
// padding between them) and op(A) none.
func TestBroadcastBFirstChooses(t *testing.T) {
	const m, n, k, pad = broadcastMinRows, 40, 24, 3
	normal := func(rows, ld int) []float32 {
		x := make([]float32, rows*ld)
		for i := range x {
			x[i] = float32(i%7) - 3
		}
		return x
	}
	sub := float32(0x1p-130)
	cases := []struct {
		name        string
		tA, tB      bool
		m           int
		alpha, beta float32
		aSub, bSub  int // index of a subnormal (-1: none)
		padSub      bool
		want        bool
	}{
		{"B subnormal", false, false, m, 1, 0, -1, 5*(n+pad) + 39, false, true},
		{"B subnormal, both transposed", true, true, m, 1, 0, -1, 39*(k+pad) + 23, false, true},
		{"B subnormal in its first value", false, true, m, 1, 0, -1, 0, false, true},
		{"no subnormal", false, false, m, 1, 0, -1, -1, false, false},
		{"A subnormal too", false, false, m, 1, 0, 7*(k+pad) + 3, 0, false, false},
		{"A subnormal alone", true, false, m, 1, 0, 3, -1, false, false},
		{"α ≠ 1", false, false, m, 2, 0, -1, 0, false, false},
		{"β ≠ 0", false, false, m, 1, 1, -1, 0, false, false},
		{"fewer rows", false, false, m - 1, 1, 0, -1, 0, false, false},
		{"subnormal in B's padding only", false, false, m, 1, 0, -1, -1, true, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ar, ac, br, bc := c.m, k, k, n
			if c.tA {
				ar, ac = k, c.m
			}
			if c.tB {
				br, bc = n, k
			}
			a, b := normal(ar, ac+pad), normal(br, bc+pad)
			if c.aSub >= 0 {
				a[c.aSub] = sub
			}
			if c.bSub >= 0 {
				b[c.bSub] = sub
			}
			if c.padSub {
				b[bc] = sub // the first value past row 0
			}
			require.Equal(t, c.want, broadcastBFirst(c.tA, c.tB, c.m, n, k, c.alpha, a, ac+pad, b, bc+pad, c.beta))
		})
	}
}

// TestTransposeMat: the transpose matches the obvious loop on every shape
// up to 40×40 (the 16-row blocks, the 8-column blocks and both edges) with
// strides wider than the rows, and writes nothing else of dst.
func TestTransposeMat(t *testing.T) {
	for rows := 1; rows <= 40; rows++ {
		for cols := 1; cols <= 40; cols += 3 {
			lds, ldd := cols+2, rows+5
			src := make([]float32, rows*lds)
			for i := range src {
				src[i] = float32(i)
			}
			dst := make([]float32, cols*ldd)
			for i := range dst {
				dst[i] = -1
			}
			transposeMat(dst, ldd, src, lds, rows, cols)
			for j := range cols {
				for i := range ldd {
					want := float32(-1)
					if i < rows {
						want = src[i*lds+j]
					}
					if dst[j*ldd+i] != want {
						t.Fatalf("%d×%d: dst[%d,%d] = %v, want %v", rows, cols, j, i, dst[j*ldd+i], want)
					}
				}
			}
		}
	}
}
