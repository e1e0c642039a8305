package wino

import (
	"fmt"
	"math"
	"testing"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/stretchr/testify/require"
)

// The matrices of F(4×4, 3×3), written out as in Lavin and Gray's paper
// (the oracle of the tests; the code never reads them).
var (
	mat4BT = [6][6]float64{{4, 0, -5, 0, 1, 0}, {0, -4, -4, 1, 1, 0}, {0, 4, -4, -1, 1, 0}, {0, -2, -1, 2, 1, 0}, {0, 2, -1, -2, 1, 0}, {0, 4, 0, -5, 0, 1}}
	mat4G  = [6][3]float64{{1.0 / 4, 0, 0}, {-1.0 / 6, -1.0 / 6, -1.0 / 6}, {-1.0 / 6, 1.0 / 6, -1.0 / 6}, {1.0 / 24, 1.0 / 12, 1.0 / 6}, {1.0 / 24, -1.0 / 12, 1.0 / 6}, {0, 0, 1}}
	mat4AT = [4][6]float64{{1, 1, 1, 1, 1, 0}, {0, 1, -1, 2, -2, 0}, {0, 1, 1, 4, 4, 0}, {0, 1, -1, 8, -8, 1}}
)

// planes4 are the plane sizes the F(4×4) tests run: wide enough for the
// eight-tile kernels (w ≥ 32) and the four-tile ones and not, multiples of
// 4 and not (the last tile row and column cut by the border), odd.
var planes4 = [][2]int{{32, 32}, {16, 16}, {8, 8}, {4, 4}, {2, 2}, {3, 2}, {5, 7}, {6, 17}, {7, 34}, {4, 48},
	{1, 16}, {8, 12}, {10, 24}, {9, 9}, {14, 14}, {12, 22}, {33, 33}, {16, 64}, {13, 40}, {20, 28}, {31, 31}, {17, 45}}

// run4 computes the four F(4×4) plane transforms of one random case.
func run4(h, w, stride int, seed int64) (v, dh, y, dx []float32) {
	r := rng.New(seed, "wino4")
	src, g, m := randPlane(r, h*w), randPlane(r, h*w), randPlane(r, 36*stride)
	pad := randPlane(r, F4PadSize(h, w)) // stale scratch must not matter
	v, dh = randPlane(r, 36*stride), randPlane(r, 36*stride)
	y, dx = randPlane(r, h*w), randPlane(r, h*w)
	F4Input(src, h, w, pad, v, stride, Cols{})
	F4OutGrad(g, h, w, dh, stride, Cols{})
	F4Output(m, stride, h, w, 0.25, pad, y)
	F4InputGrad(m, stride, h, w, pad, dx)
	return
}

// TestF4AsmMatchesGo: the AVX2 kernels give the Go twins' bits.
func TestF4AsmMatchesGo(t *testing.T) {
	requireAsmMatchesGo(t, planes4, F4Tiles, run4, [4]string{"F4Input", "F4OutGrad", "F4Output", "F4InputGrad"})
}

// patch6 returns the 6×6 patch tile (ty, tx) reads from the h×w plane x
// (zeros outside it).
func patch6(x []float32, h, w, ty, tx int) (d [6][6]float64) {
	for a := 0; a < 6; a++ {
		for b := 0; b < 6; b++ {
			r, c := 4*ty-1+a, 4*tx-1+b
			if r >= 0 && r < h && c >= 0 && c < w {
				d[a][b] = float64(x[r*w+c])
			}
		}
	}
	return d
}

// near4 checks a float32 result against its float64 definition: a value
// summed in float32 from terms whose absolute values add up to scale is
// off by at most a few ulps of scale (2⁻²⁴ each rounding, a dozen
// roundings on any path through the 6×6 transforms).
func near4(t *testing.T, what string, got float32, want, scale float64) {
	t.Helper()
	if d := math.Abs(float64(got) - want); d > 16*0x1p-24*scale+1e-30 {
		t.Fatalf("%s = %v, definition %v (scale %v)", what, got, want, scale)
	}
}

// TestF4TransformsMatchDefinitions: the transforms (Go twins and assembly)
// against the matrix products of the definitions in float64 (Bᵀ d B,
// A ∂Y Aᵀ, Aᵀ m A + bias, and the sum of B z Bᵀ over the patches), each
// to a few roundings of the sum of its terms' absolute values.
func TestF4TransformsMatchDefinitions(t *testing.T) {
	defer func(v bool) { useAsm = v }(useAsm)
	for _, asm := range []bool{false, useAsm} {
		useAsm = asm
		for i, p := range planes4 {
			h, w := p[0], p[1]
			t.Run(fmt.Sprintf("asm=%v/%dx%d", asm, h, w), func(t *testing.T) {
				th, tw := F4Tiles(h, w)
				stride := th*tw + 40
				v, dh, y, dx := run4(h, w, stride, int64(i))
				r := rng.New(int64(i), "wino4")
				src, g, m := randPlane(r, h*w), randPlane(r, h*w), randPlane(r, 36*stride)
				wantDx := make([]float64, h*w)
				scaleDx := make([]float64, h*w)
				for ty := 0; ty < th; ty++ {
					for tx := 0; tx < tw; tx++ {
						at := ty*tw + tx
						d := patch6(src, h, w, ty, tx)
						var dy [4][4]float64
						for a := 0; a < 4; a++ {
							for b := 0; b < 4; b++ {
								if rr, cc := 4*ty+a, 4*tx+b; rr < h && cc < w {
									dy[a][b] = float64(g[rr*w+cc])
								}
							}
						}
						for a := 0; a < 6; a++ {
							for b := 0; b < 6; b++ {
								var sv, scv, sd, scd float64
								for i := 0; i < 6; i++ {
									for j := 0; j < 6; j++ {
										term := mat4BT[a][i] * d[i][j] * mat4BT[b][j]
										sv += term
										scv += math.Abs(term)
									}
								}
								for i := 0; i < 4; i++ {
									for j := 0; j < 4; j++ {
										term := mat4AT[i][a] * dy[i][j] * mat4AT[j][b]
										sd += term
										scd += math.Abs(term)
									}
								}
								near4(t, fmt.Sprintf("V[%d][%d]", 6*a+b, at), v[(6*a+b)*stride+at], sv, scv)
								near4(t, fmt.Sprintf("D̂[%d][%d]", 6*a+b, at), dh[(6*a+b)*stride+at], sd, scd)
							}
						}
						// Aᵀ m A + bias on the tile's outputs inside the plane.
						for a := 0; a < 4; a++ {
							for b := 0; b < 4; b++ {
								rr, cc := 4*ty+a, 4*tx+b
								if rr >= h || cc >= w {
									continue
								}
								want, scale := 0.25, 0.25
								for i := 0; i < 6; i++ {
									for j := 0; j < 6; j++ {
										term := mat4AT[a][i] * float64(m[(6*i+j)*stride+at]) * mat4AT[b][j]
										want += term
										scale += math.Abs(term)
									}
								}
								near4(t, fmt.Sprintf("Y[%d][%d]", rr, cc), y[rr*w+cc], want, scale)
							}
						}
						// B z Bᵀ added onto the patch.
						for a := 0; a < 6; a++ {
							for b := 0; b < 6; b++ {
								rr, cc := 4*ty-1+a, 4*tx-1+b
								if rr < 0 || rr >= h || cc < 0 || cc >= w {
									continue
								}
								for i := 0; i < 6; i++ {
									for j := 0; j < 6; j++ {
										term := mat4BT[i][a] * float64(m[(6*i+j)*stride+at]) * mat4BT[j][b]
										wantDx[rr*w+cc] += term
										scaleDx[rr*w+cc] += math.Abs(term)
									}
								}
							}
						}
					}
				}
				for j := range dx {
					near4(t, fmt.Sprintf("∂x[%d]", j), dx[j], wantDx[j], scaleDx[j])
				}
			})
		}
	}
}

// intPlane fills n values with integers in [−8, 8]: the plane transforms
// multiply by integers of at most 5 and add at most a few hundred terms, so
// every float32 operation on them is exact.
func intPlane(r interface{ IntN(int) int }, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.IntN(17) - 8)
	}
	return v
}

func dot(a, b []float32) float64 {
	var s float64
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

// TestF4Adjoints: the backward transforms are the transposes of the forward
// ones, ⟨F4Input x, z⟩ = ⟨x, F4InputGrad z⟩ and ⟨F4Output m, ∂y⟩ =
// ⟨m, F4OutGrad ∂y⟩, exactly on integer data (where every float32 operation
// is exact), so a misplaced tile or a wrong entry in one of a pair shows as
// a difference, on every plane, with and without the assembly.
func TestF4Adjoints(t *testing.T) {
	defer func(v bool) { useAsm = v }(useAsm)
	for _, asm := range []bool{false, useAsm} {
		useAsm = asm
		for i, p := range planes4 {
			h, w := p[0], p[1]
			th, tw := F4Tiles(h, w)
			tpi := th * tw
			r := rng.New(int64(i), "wino4-adjoint")
			x, dy := intPlane(r, h*w), intPlane(r, h*w)
			z, m := intPlane(r, 36*tpi), intPlane(r, 36*tpi)
			pad := make([]float32, F4PadSize(h, w))
			v, dh := make([]float32, 36*tpi), make([]float32, 36*tpi)
			dx, y := make([]float32, h*w), make([]float32, h*w)
			F4Input(x, h, w, pad, v, tpi, Cols{})
			F4InputGrad(z, tpi, h, w, pad, dx)
			F4Output(m, tpi, h, w, 0, pad, y)
			F4OutGrad(dy, h, w, dh, tpi, Cols{})
			require.Equal(t, dot(v, z), dot(x, dx), "asm=%v %d×%d: ⟨Input x, z⟩ ≠ ⟨x, InputGrad z⟩", asm, h, w)
			require.Equal(t, dot(y, dy), dot(m, dh), "asm=%v %d×%d: ⟨Output m, ∂y⟩ ≠ ⟨m, OutGrad ∂y⟩", asm, h, w)
		}
	}
}

// TestF4WeightTransforms: U = G g Gᵀ and ∂g = Gᵀ ∂U G against the matrix
// products, for a 3×5 block of kernels and output channels [1, 3), and the
// pair as adjoints: ⟨U(g), ∂U⟩ = ⟨g, ∂g(∂U)⟩ to float32 rounding.
func TestF4WeightTransforms(t *testing.T) {
	const K, C, stride = 3, 5, 3*5 + 2
	r := rng.New(7, "wino4-weights")
	w, du := randPlane(r, K*C*9), randPlane(r, 36*stride)
	u, dw := randPlane(r, 36*stride), randPlane(r, K*C*9)
	u0, dw0 := append([]float32(nil), u...), append([]float32(nil), dw...)
	F4Weights(w, K, C, 1, 3, u, stride)
	F4WeightGrad(du, stride, K, C, 1, 3, dw)
	var lhs, rhs, scale float64
	for o := 0; o < K; o++ {
		for c := 0; c < C; c++ {
			at := o*C + c
			for a := 0; a < 6; a++ {
				for b := 0; b < 6; b++ {
					got := u[(6*a+b)*stride+at]
					if o == 0 {
						require.Equal(t, u0[(6*a+b)*stride+at], got, "channel 0 is outside [1, 3)")
						continue
					}
					var want, sc float64
					for i := 0; i < 3; i++ {
						for j := 0; j < 3; j++ {
							term := mat4G[a][i] * float64(w[at*9+3*i+j]) * mat4G[b][j]
							want += term
							sc += math.Abs(term)
						}
					}
					near4(t, fmt.Sprintf("U[%d][%d]", 6*a+b, at), got, want, sc)
					lhs += float64(got) * float64(du[(6*a+b)*stride+at])
					scale += math.Abs(float64(got) * float64(du[(6*a+b)*stride+at]))
				}
			}
			for i := 0; i < 3; i++ {
				for j := 0; j < 3; j++ {
					got := dw[at*9+3*i+j]
					if o == 0 {
						require.Equal(t, dw0[at*9+3*i+j], got, "channel 0 is outside [1, 3)")
						continue
					}
					var want, sc float64
					for a := 0; a < 6; a++ {
						for b := 0; b < 6; b++ {
							term := mat4G[a][i] * float64(du[(6*a+b)*stride+at]) * mat4G[b][j]
							want += term
							sc += math.Abs(term)
						}
					}
					near4(t, fmt.Sprintf("∂g[%d][%d]", 3*i+j, at), got, want, sc)
					rhs += float64(w[at*9+3*i+j]) * float64(got)
				}
			}
		}
	}
	require.InDelta(t, lhs, rhs, 16*0x1p-24*scale, "⟨U(g), ∂U⟩ ≠ ⟨g, ∂g(∂U)⟩")
}

// TestF4ColsPlaceTiles: with Cols, F4Input and F4OutGrad write each tile's
// 36 values where Cols.off puts it (strips with the plane's first tile on
// a strip boundary and off it), the same values as in the plain layout,
// and nothing else.
func TestF4ColsPlaceTiles(t *testing.T) {
	for _, p := range [][2]int{{32, 32}, {16, 16}, {8, 8}, {7, 34}, {16, 36}, {32, 64}} {
		h, w := p[0], p[1]
		th, tw := F4Tiles(h, w)
		n := th * tw
		for _, cols := range []Cols{{First: 0, Strip: 16, StripStride: 40}, {First: 5, Strip: 16, StripStride: 37}, {First: 12, Strip: 8, StripStride: 20}, {First: 3, Strip: 32, StripStride: 70}} {
			last := cols.off(n-1) + 1
			stride := last + 9
			r := rng.New(int64(h*w+cols.First), "wino4-cols")
			src, g := randPlane(r, h*w), randPlane(r, h*w)
			pad := make([]float32, F4PadSize(h, w))
			plainV, plainD := make([]float32, 36*n), make([]float32, 36*n)
			F4Input(src, h, w, pad, plainV, n, Cols{})
			F4OutGrad(g, h, w, plainD, n, Cols{})
			const fill = -12345
			v, d := make([]float32, 36*stride), make([]float32, 36*stride)
			for i := range v {
				v[i], d[i] = fill, fill
			}
			F4Input(src, h, w, pad, v, stride, cols)
			F4OutGrad(g, h, w, d, stride, cols)
			placed := map[int]bool{}
			for xi := 0; xi < 36; xi++ {
				for tt := 0; tt < n; tt++ {
					at := xi*stride + cols.off(tt)
					placed[at] = true
					require.Equal(t, plainV[xi*n+tt], v[at], "%d×%d %+v: V[%d] of tile %d", h, w, cols, xi, tt)
					require.Equal(t, plainD[xi*n+tt], d[at], "%d×%d %+v: D̂[%d] of tile %d", h, w, cols, xi, tt)
				}
			}
			for i := range v {
				if !placed[i] {
					require.Equal(t, float32(fill), v[i], "%d×%d %+v: V written at %d, no tile's place", h, w, cols, i)
					require.Equal(t, float32(fill), d[i], "%d×%d %+v: D̂ written at %d, no tile's place", h, w, cols, i)
				}
			}
		}
	}
}
