package vec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func randRow(r *rand.Rand, n int) []float32 {
	x := make([]float32, n)
	for i := range x {
		x[i] = float32(r.NormFloat64())
	}
	return x
}

// paths runs f with the assembly routines (where the processor has AVX2)
// and with the Go twins alone.
func paths(t *testing.T, f func(t *testing.T)) {
	defer func(v bool) { useAsm = v }(useAsm)
	for _, asm := range []bool{false, true} {
		if asm && !HasAVX2 {
			t.Log("no AVX2 here: the Go twins only")
			continue
		}
		useAsm = asm
		t.Run(fmt.Sprintf("asm=%v", asm), f)
	}
}

// lengths cover the empty row, rows shorter than a vector, exact multiples
// of 8 and 16 and remainders.
var lengths = []int{0, 1, 7, 8, 15, 16, 17, 33, 64, 1000, 1024}

// The sums equal the float64 definition to rounding (another order of
// addition), on both paths.
func TestSums(t *testing.T) {
	paths(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 2))
		for _, n := range lengths {
			x, dy := randRow(r, n), randRow(r, n)
			mu, a, b := 0.3, float32(1.7), float32(-0.2)
			var s, sq, sg, sgd, sgR, sgdR float64
			for i, v := range x {
				s += float64(v)
				sq += (float64(v) - mu) * (float64(v) - mu)
				sg += float64(dy[i])
				sgd += float64(dy[i]) * (float64(v) - mu)
				if z := v*a + b; z > 0 {
					sgR += float64(dy[i])
					sgdR += float64(dy[i]) * (float64(v) - mu)
				}
			}
			tol := 1e-12 * float64(n+1) * 10
			assert.InDelta(t, s, Sum(x), tol, "Sum n=%d", n)
			assert.InDelta(t, sq, SqDev(x, mu), tol, "SqDev n=%d", n)
			g, gd := MaskedSums(x, dy, a, b, false, mu)
			assert.InDelta(t, sg, g, tol, "Σg n=%d", n)
			assert.InDelta(t, sgd, gd, tol, "Σg(x−μ) n=%d", n)
			g, gd = MaskedSums(x, dy, a, b, true, mu)
			assert.InDelta(t, sgR, g, tol, "Σg with ReLU n=%d", n)
			assert.InDelta(t, sgdR, gd, tol, "Σg(x−μ) with ReLU n=%d", n)
		}
	})
}

// Affine and Grad give exactly the Go twins' values (the same roundings),
// including the ReLU at 0, −0 and NaN.
func TestAffineAndGradExact(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range lengths {
		x, dy := randRow(r, n), randRow(r, n)
		if n >= 8 {
			x[1], x[2], x[3] = float32(math.NaN()), 0, float32(math.Copysign(0, -1))
		}
		a := float32(1.3)
		for _, c := range []struct {
			b    float32
			relu bool
		}{{0.1, false}, {0.1, true}, {0, true}} { // b = 0: x = ±0 puts z exactly at 0
			b, relu := c.b, c.relu
			want := make([]float32, n)
			affineGo(want, x, a, b, relu)
			wantG := make([]float32, n)
			gradGo(wantG, x, dy, a, b, relu, 0.7, -0.3, 0.05, 0.2)
			paths(t, func(t *testing.T) {
				got := make([]float32, n)
				Affine(got, x, a, b, relu)
				gotG := make([]float32, n)
				Grad(gotG, x, dy, a, b, relu, 0.7, -0.3, 0.05, 0.2)
				for i := range want {
					require.Equal(t, math.Float32bits(want[i]), math.Float32bits(got[i]), "Affine n=%d relu=%v i=%d: %v, want %v", n, relu, i, got[i], want[i])
					require.Equal(t, math.Float32bits(wantG[i]), math.Float32bits(gotG[i]), "Grad n=%d relu=%v i=%d: %v, want %v", n, relu, i, gotG[i], wantG[i])
				}
			})
		}
	}
}

// The Go twins themselves against the definitions: y = max(x·a + b, 0)
// with NaN → 0, dx = k·g + q·(x − m) + r with g masked where the ReLU is 0.
func TestGoTwinsDefinition(t *testing.T) {
	x := []float32{-1, 0, 2, float32(math.NaN())}
	dy := []float32{5, 6, 7, 8}
	y := make([]float32, 4)
	affineGo(y, x, 2, 0.5, true)
	assert.Equal(t, []float32{0, 0.5, 4.5, 0}, y)
	affineGo(y, x[:3], 2, 0.5, false)
	assert.Equal(t, []float32{-1.5, 0.5, 4.5}, y[:3])
	dx := make([]float32, 4)
	gradGo(dx, x[:3], dy[:3], 2, 0.5, true, 1, 0, 0, 0)
	assert.Equal(t, []float32{0, 6, 7}, dx[:3], "g = dy where x·a + b > 0")
	gradGo(dx, x[:3], dy[:3], 2, 0.5, false, 2, 3, 1, 1)
	assert.Equal(t, []float32{2*5 + 3*(-2) + 1, 2*6 + 3*(-1) + 1, 2*7 + 3*1 + 1}, dx[:3])
}
