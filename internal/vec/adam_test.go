package vec

import (
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

// TestAdamExact: Adam gives, on both paths and for the L2 and decoupled
// forms, the bits of the update rounded step by step, on random rows of
// every length class, over several steps (moments carried), with zero,
// tiny and huge gradients among them.
func TestAdamExact(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, decoupled := range []bool{false, true} {
		for _, n := range lengths {
			paths(t, func(t *testing.T) {
				p, g := randRow(r, n), randRow(r, n)
				if n >= 8 {
					g[1], g[2], g[3], g[5] = 0, float32(math.Copysign(0, -1)), 1e-30, 3e20
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
// count), the assembly routine against its Go twin; ns/op over 11e6 is the
// cost a parameter.
func BenchmarkAdam(b *testing.B) {
	const n = 11_000_000
	r := rand.New(rand.NewPCG(7, 8))
	p, g := randRow(r, n), randRow(r, n)
	m, v := make([]float32, n), make([]float32, n)
	c := &AdamCoef{B1: 0.9, B2: 0.999, StepSize: 1e-3, BC2: 0.03, Eps: 1e-8}
	for _, asm := range []bool{false, true} {
		if asm && !HasAVX2 {
			continue
		}
		b.Run(map[bool]string{false: "go", true: "avx2"}[asm], func(b *testing.B) {
			defer func(v bool) { useAsm = v }(useAsm)
			useAsm = asm
			b.SetBytes(n * 28) // θ, g, m, v read; θ, m, v written
			for i := 0; i < b.N; i++ {
				Adam(p, g, m, v, c)
			}
		})
	}
}
