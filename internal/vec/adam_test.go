package vec

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"
)

// The assembly reads adamConsts by these offsets.
func TestAdamCoefLayout(t *testing.T) {
	var c adamConsts
	require.Equal(t, []uintptr{0, 4, 8, 12, 16, 20, 24, 28, 32, 36}, []uintptr{
		unsafe.Offsetof(c.B1), unsafe.Offsetof(c.B2), unsafe.Offsetof(c.OneMinusB1), unsafe.Offsetof(c.OneMinusB2),
		unsafe.Offsetof(c.StepSize), unsafe.Offsetof(c.BC2), unsafe.Offsetof(c.Eps), unsafe.Offsetof(c.WD),
		unsafe.Offsetof(c.Decay), unsafe.Offsetof(c.Decoupled)})
}

// adamRef is the update written out in float64 with each operation rounded
// to float32 as it goes (another route to adamGo's values).
func adamRef(p, g, m, v float32, c *AdamCoef) (float32, float32, float32) {
	r := func(x float64) float64 { return float64(float32(x)) }
	P, G, M, V := float64(p), float64(g), float64(m), float64(v)
	if c.Decoupled {
		P = r(P * float64(c.Decay))
	} else {
		G = r(G + r(float64(c.WD)*P))
	}
	M = r(r(float64(c.B1)*M) + r(r(1-float64(c.B1))*G))
	V = r(r(float64(c.B2)*V) + r(r(r(1-float64(c.B2))*G)*G))
	den := r(r(r(math.Sqrt(V))/float64(c.BC2)) + float64(c.Eps))
	P = r(P - r(r(float64(c.StepSize)*M)/den))
	return float32(P), float32(M), float32(V)
}

// TestAdamExact: Adam gives, on every path (the Go twin, AVX2 and, where
// the processor has it, AVX-512) and for the L2 and decoupled forms, the
// bits of the update rounded step by step, on random rows of every length
// class, over several steps (moments carried), with zero, tiny, subnormal
// and huge gradients among them, in both halves of a 16-value vector.
func TestAdamExact(t *testing.T) {
	defer func(v bool) { useAVX512 = v }(useAVX512)
	r := rand.New(rand.NewPCG(5, 6))
	for _, avx512 := range []bool{false, true} {
		if avx512 && !hasAVX512 {
			t.Log("no AVX-512 here: its routine is not checked")
			continue
		}
		useAVX512 = avx512
		t.Run(fmt.Sprintf("avx512=%v", avx512), func(t *testing.T) { adamExact(t, r) })
	}
}

func adamExact(t *testing.T, r *rand.Rand) {
	for _, decoupled := range []bool{false, true} {
		for _, n := range lengths {
			paths(t, func(t *testing.T) {
				p, g := randRow(r, n), randRow(r, n)
				if n >= 8 {
					g[1], g[2], g[3], g[5] = 0, float32(math.Copysign(0, -1)), 1e-30, 3e20
					// A subnormal gradient, and one whose (1−β₂)g² is subnormal.
					g[6], g[7] = -2.5e-39, 1.3e-19
				}
				if n >= 16 {
					g[9], g[12], g[14] = 7e-41, -1e-19, 1e-45
				}
				m, v := make([]float32, n), make([]float32, n)
				wp, wm, wv := append([]float32(nil), p...), make([]float32, n), make([]float32, n)
				for step := 1; step <= 3; step++ {
					c := &AdamCoef{B1: 0.9, B2: 0.999,
						StepSize: float32(1e-3 / (1 - math.Pow(0.9, float64(step)))), BC2: float32(math.Sqrt(1 - math.Pow(0.999, float64(step)))),
						Eps: 1e-8, WD: 5e-4, Decay: 1 - 1e-3*5e-4, Decoupled: decoupled}
					for i := range wp {
						wp[i], wm[i], wv[i] = adamRef(wp[i], g[i], wm[i], wv[i], c)
					}
					Adam(p, g, m, v, c)
					for i := range p {
						for k, pair := range [][2]float32{{p[i], wp[i]}, {m[i], wm[i]}, {v[i], wv[i]}} {
							require.Equal(t, math.Float32bits(pair[1]), math.Float32bits(pair[0]),
								"decoupled=%v n=%d step %d i=%d: %s = %v, want %v", decoupled, n, step, i, []string{"θ", "m", "v"}[k], pair[0], pair[1])
						}
					}
				}
			})
		}
	}
}

// BenchmarkAdam times one Adam update of 11 M parameters (ResNet18's
// count) on each path (the Go twin, AVX2, AVX-512), with ordinary values
// and with the gradients and moments subnormal (as VGG16's classifier has
// them in its early steps); ns/op over 11e6 is the cost a parameter.
func BenchmarkAdam(b *testing.B) {
	const n = 11_000_000
	r := rand.New(rand.NewPCG(7, 8))
	p := randRow(r, n)
	c := &AdamCoef{B1: 0.9, B2: 0.999, StepSize: 1e-3, BC2: 0.03, Eps: 1e-8}
	for _, values := range []string{"normal", "subnormal"} {
		g, m, v := randRow(r, n), randRow(r, n), randRow(r, n)
		for i := range v {
			v[i] = float32(math.Abs(float64(v[i])))
		}
		if values == "subnormal" {
			for _, row := range [][]float32{g, m, v} {
				for i := range row {
					row[i] *= 1e-39
				}
			}
		}
		for _, path := range []string{"go", "avx2", "avx512"} {
			if (path != "go" && !HasAVX2) || (path == "avx512" && !hasAVX512) {
				continue
			}
			b.Run(values+"/"+path, func(b *testing.B) {
				defer func(a, z bool) { useAsm, useAVX512 = a, z }(useAsm, useAVX512)
				useAsm, useAVX512 = path != "go", path == "avx512"
				// Each run starts from the same moments, so that every
				// iteration meets the same values.
				m0, v0 := append([]float32(nil), m...), append([]float32(nil), v...)
				b.SetBytes(n * 28) // θ, g, m, v read; θ, m, v written
				for i := 0; i < b.N; i++ {
					b.StopTimer()
					copy(m0, m)
					copy(v0, v)
					b.StartTimer()
					Adam(p, g, m0, v0, c)
				}
			})
		}
	}
}
