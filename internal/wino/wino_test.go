package wino

import (
	"fmt"
	"math"
	"testing"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/stretchr/testify/require"
)

// The transform matrices of F(2×2, 3×3), written out as in Lavin and Gray's
// paper (the oracle of the tests; the code never reads them).
var (
	matBT = [4][4]float64{{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}}
	matG  = [4][3]float64{{1, 0, 0}, {0.5, 0.5, 0.5}, {0.5, -0.5, 0.5}, {0, 0, 1}}
	matAT = [2][4]float64{{1, 1, 1, 0}, {0, 1, -1, -1}}
)

// planes are the plane sizes the tests run: wide enough for the eight-tile
// kernels (w ≥ 16) and not, even and odd, with tile columns beyond a
// multiple of eight.
var planes = [][2]int{{32, 32}, {16, 16}, {8, 8}, {4, 4}, {2, 2}, {3, 2}, {5, 7}, {6, 17}, {7, 34}, {4, 48}, {1, 16}, {8, 12}, {10, 24}, {9, 9}, {14, 14}, {10, 10}, {12, 22}}

func randPlane(r interface{ Float64() float64 }, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(2*r.Float64() - 1)
	}
	return v
}

// run computes the four plane transforms of one random case.
func run(h, w, stride int, seed int64) (v, dh, y, dx []float32) {
	r := rng.New(seed, "wino")
	src, g, m := randPlane(r, h*w), randPlane(r, h*w), randPlane(r, 16*stride)
	pad := randPlane(r, PadSize(h, w)) // stale scratch must not matter
	v, dh = randPlane(r, 16*stride), randPlane(r, 16*stride)
	y, dx = randPlane(r, h*w), randPlane(r, h*w)
	Input(src, h, w, pad, v, stride, Cols{})
	OutGrad(g, h, w, dh, stride, Cols{})
	Output(m, stride, h, w, 0.25, pad, y)
	InputGrad(m, stride, h, w, pad, dx)
	return
}

// TestAsmMatchesGo: the AVX2 kernels give the Go twins' bits.
func TestAsmMatchesGo(t *testing.T) {
	requireAsmMatchesGo(t, planes, Tiles, run, [4]string{"Input", "OutGrad", "Output", "InputGrad"})
}

// requireAsmMatchesGo runs the four plane transforms (run: input, output
// gradient, output, input gradient) of every plane size in planes with the
// AVX2 kernels and with the Go twins alone, on the same random inputs, and
// requires the same bits; tiles gives a plane's tile rows and columns.
func requireAsmMatchesGo(t *testing.T, planes [][2]int, tiles func(h, w int) (int, int),
	run func(h, w, stride int, seed int64) (v, dh, y, dx []float32), names [4]string) {
	t.Helper()
	if !useAsm {
		t.Skip("no AVX2 on this processor: the Go twins run alone")
	}
	defer func() { useAsm = true }()
	for i, p := range planes {
		h, w := p[0], p[1]
		th, tw := tiles(h, w)
		stride := th*tw + 40
		useAsm = true
		var a, b [4][]float32
		a[0], a[1], a[2], a[3] = run(h, w, stride, int64(i))
		useAsm = false
		b[0], b[1], b[2], b[3] = run(h, w, stride, int64(i))
		for k, name := range names {
			for j := range a[k] {
				if math.Float32bits(a[k][j]) != math.Float32bits(b[k][j]) {
					t.Fatalf("%d×%d %s[%d]: assembly %v, Go %v", h, w, name, j, a[k][j], b[k][j])
				}
			}
		}
	}
}

// patch returns the 4×4 patch tile (ty, tx) reads from the h×w plane x
// (zeros outside it).
func patch(x []float32, h, w, ty, tx int) (d [4][4]float64) {
	for a := 0; a < 4; a++ {
		for b := 0; b < 4; b++ {
			r, c := 2*ty-1+a, 2*tx-1+b
			if r >= 0 && r < h && c >= 0 && c < w {
				d[a][b] = float64(x[r*w+c])
			}
		}
	}
	return d
}

func near(t *testing.T, what string, got float32, want, scale float64) {
	t.Helper()
	if d := math.Abs(float64(got) - want); d > 1e-6*scale+1e-7 {
		t.Fatalf("%s = %v, definition %v", what, got, want)
	}
}

// TestTransformsMatchDefinitions: the Go twins against the matrix products
// of the definitions in float64 (Bᵀ d B, A ∂Y Aᵀ, Aᵀ m A + bias, the sum of
// B z Bᵀ over the patches, G g Gᵀ and Gᵀ ∂U G).
func TestTransformsMatchDefinitions(t *testing.T) {
	defer func(v bool) { useAsm = v }(useAsm)
	for _, asm := range []bool{false, useAsm} {
		useAsm = asm
		for i, p := range planes {
			h, w := p[0], p[1]
			t.Run(fmt.Sprintf("asm=%v/%dx%d", asm, h, w), func(t *testing.T) {
				th, tw := Tiles(h, w)
				stride := th*tw + 40
				v, dh, y, dx := run(h, w, stride, int64(i))
				r := rng.New(int64(i), "wino")
				src, g, m := randPlane(r, h*w), randPlane(r, h*w), randPlane(r, 16*stride)
				wantDx := make([]float64, h*w)
				scaleDx := make([]float64, h*w)
				for ty := 0; ty < th; ty++ {
					for tx := 0; tx < tw; tx++ {
						at := ty*tw + tx
						d := patch(src, h, w, ty, tx)
						dyTile := [2][2]float64{}
						for a := 0; a < 2; a++ {
							for b := 0; b < 2; b++ {
								if rr, cc := 2*ty+a, 2*tx+b; rr < h && cc < w {
									dyTile[a][b] = float64(g[rr*w+cc])
								}
							}
						}
						for a := 0; a < 4; a++ {
							for b := 0; b < 4; b++ {
								var sv, sd, scale float64
								for i := 0; i < 4; i++ {
									for j := 0; j < 4; j++ {
										sv += matBT[a][i] * d[i][j] * matBT[b][j]
										scale += math.Abs(d[i][j])
									}
								}
								for i := 0; i < 2; i++ {
									for j := 0; j < 2; j++ {
										sd += matAT[i][a] * dyTile[i][j] * matAT[j][b]
									}
								}
								near(t, fmt.Sprintf("V[%d][%d]", 4*a+b, at), v[(4*a+b)*stride+at], sv, scale)
								near(t, fmt.Sprintf("D̂[%d][%d]", 4*a+b, at), dh[(4*a+b)*stride+at], sd, 4)
							}
						}
						// Aᵀ m A + bias on the tile's outputs inside the plane.
						for a := 0; a < 2; a++ {
							for b := 0; b < 2; b++ {
								rr, cc := 2*ty+a, 2*tx+b
								if rr >= h || cc >= w {
									continue
								}
								want, scale := 0.25, 0.25
								for i := 0; i < 4; i++ {
									for j := 0; j < 4; j++ {
										mv := float64(m[(4*i+j)*stride+at])
										want += matAT[a][i] * mv * matAT[b][j]
										scale += math.Abs(mv)
									}
								}
								near(t, fmt.Sprintf("Y[%d][%d]", rr, cc), y[rr*w+cc], want, scale)
							}
						}
						// B z Bᵀ added onto the patch.
						for a := 0; a < 4; a++ {
							for b := 0; b < 4; b++ {
								rr, cc := 2*ty-1+a, 2*tx-1+b
								if rr < 0 || rr >= h || cc < 0 || cc >= w {
									continue
								}
								for i := 0; i < 4; i++ {
									for j := 0; j < 4; j++ {
										zv := float64(m[(4*i+j)*stride+at])
										wantDx[rr*w+cc] += matBT[i][a] * zv * matBT[j][b]
										scaleDx[rr*w+cc] += math.Abs(zv)
									}
								}
							}
						}
					}
				}
				for j := range dx {
					near(t, fmt.Sprintf("∂x[%d]", j), dx[j], wantDx[j], scaleDx[j])
				}
			})
		}
	}
}

// TestWeightTransforms: U = G g Gᵀ and ∂g = Gᵀ ∂U G against the matrix
// products, for a 3×5 block of kernels and output channels [1, 3).
func TestWeightTransforms(t *testing.T) {
	const K, C, stride = 3, 5, 3*5 + 2
	r := rng.New(7, "wino-weights")
	w, du := randPlane(r, K*C*9), randPlane(r, 16*stride)
	u, dw := randPlane(r, 16*stride), randPlane(r, K*C*9)
	u0, dw0 := append([]float32(nil), u...), append([]float32(nil), dw...)
	Weights(w, K, C, 1, 3, u, stride)
	WeightGrad(du, stride, K, C, 1, 3, dw)
	for o := 0; o < K; o++ {
		for c := 0; c < C; c++ {
			at := o*C + c
			for a := 0; a < 4; a++ {
				for b := 0; b < 4; b++ {
					got := u[(4*a+b)*stride+at]
					if o == 0 {
						require.Equal(t, u0[(4*a+b)*stride+at], got, "channel 0 is outside [1, 3)")
						continue
					}
					var want float64
					for i := 0; i < 3; i++ {
						for j := 0; j < 3; j++ {
							want += matG[a][i] * float64(w[at*9+3*i+j]) * matG[b][j]
						}
					}
					near(t, fmt.Sprintf("U[%d][%d]", 4*a+b, at), got, want, 9)
				}
			}
			for i := 0; i < 3; i++ {
				for j := 0; j < 3; j++ {
					got := dw[at*9+3*i+j]
					if o == 0 {
						require.Equal(t, dw0[at*9+3*i+j], got, "channel 0 is outside [1, 3)")
						continue
					}
					var want float64
					for a := 0; a < 4; a++ {
						for b := 0; b < 4; b++ {
							want += matG[a][i] * float64(du[(4*a+b)*stride+at]) * matG[b][j]
						}
					}
					near(t, fmt.Sprintf("∂g[%d][%d]", 3*i+j, at), got, want, 16)
				}
			}
		}
	}
}

// TestColsPlaceTiles: with Cols, Input and OutGrad write each tile's 16
// values where Cols.off puts it (a packed operand's strips, with the plane's
// first tile on a strip boundary and off it, so that the eight- and
// four-tile kernels run where a strip holds their tiles and the Go twins
// elsewhere), the same values as in the plain layout, and nothing else.
func TestColsPlaceTiles(t *testing.T) {
	for _, p := range [][2]int{{32, 32}, {8, 8}, {7, 34}, {16, 18}} {
		h, w := p[0], p[1]
		th, tw := Tiles(h, w)
		n := th * tw
		for _, cols := range []Cols{{First: 0, Strip: 16, StripStride: 40}, {First: 5, Strip: 16, StripStride: 37}, {First: 12, Strip: 8, StripStride: 20}} {
			last := cols.off(n-1) + 1
			stride := last + 9
			r := rng.New(int64(h*w+cols.First), "wino-cols")
			src, g := randPlane(r, h*w), randPlane(r, h*w)
			pad := make([]float32, PadSize(h, w))
			plainV, plainD := make([]float32, 16*n), make([]float32, 16*n)
			Input(src, h, w, pad, plainV, n, Cols{})
			OutGrad(g, h, w, plainD, n, Cols{})
			const fill = -12345
			v, d := make([]float32, 16*stride), make([]float32, 16*stride)
			for i := range v {
				v[i], d[i] = fill, fill
			}
			Input(src, h, w, pad, v, stride, cols)
			OutGrad(g, h, w, d, stride, cols)
			placed := map[int]bool{}
			for xi := 0; xi < 16; xi++ {
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
