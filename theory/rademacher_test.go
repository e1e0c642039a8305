package theory

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func radTestRand(name string) *rand.Rand {
	h := uint64(0)
	for _, c := range name {
		h = h*131 + uint64(c)
	}
	return rand.New(rand.NewPCG(7, h))
}

// Hand-derived values: a single function has Rad = 0 (E_ε of a linear form);
// {g, −g} with g = (1,1), a = (1,1) gives E|ε₁+ε₂| = 1; {0, g} gives
// E max(0, ε₁+ε₂) = ½.
func TestWeightedRadExactHandValues(t *testing.T) {
	cases := []struct {
		name   string
		values *mat.Dense
		a      []float64
		want   float64
	}{
		{"single function", mat.NewDense(1, 3, []float64{1, -2, 5}), []float64{1, 2, 3}, 0},
		{"{g,−g}", mat.NewDense(2, 2, []float64{1, 1, -1, -1}), []float64{1, 1}, 1},
		{"{0,g}", mat.NewDense(2, 2, []float64{0, 0, 1, 1}), []float64{1, 1}, 0.5},
		{"weights scale", mat.NewDense(2, 2, []float64{0, 0, 1, 1}), []float64{3, 3}, 1.5},
		{"zero weight point ignored", mat.NewDense(2, 3, []float64{1, 1, 9, -1, -1, -9}), []float64{1, 1, 0}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sup, err := FiniteClassSup(tc.values, tc.a)
			require.NoError(t, err)
			got, err := WeightedRad(len(tc.a), sup, nil, 0)
			require.NoError(t, err)
			assert.Truef(t, got.Exact, "Rad = %+v, want exact %g", got, tc.want)
			assert.InDeltaf(t, tc.want, got.Value, 1e-15, "Rad = %+v, want exact %g", got, tc.want)
		})
	}
}

// Exact enumeration against an independent Monte Carlo estimate.
func TestWeightedRadExactVsMonteCarlo(t *testing.T) {
	r := radTestRand("exact-vs-mc")
	for trial := 0; trial < 5; trial++ {
		M, G := 3+r.IntN(8), 2+r.IntN(5)
		V := mat.NewDense(G, M, nil)
		a := make([]float64, M)
		for i := 0; i < M; i++ {
			a[i] = r.Float64()
			for g := 0; g < G; g++ {
				V.Set(g, i, r.NormFloat64())
			}
		}
		sup, err := FiniteClassSup(V, a)
		require.NoError(t, err)
		exact, err := WeightedRadExact(M, sup)
		require.NoError(t, err)
		mc, err := WeightedRadMC(M, sup, r, 40000)
		require.NoError(t, err)
		require.Falsef(t, mc.Exact, "MC estimate %+v: want inexact with a positive standard error", mc)
		require.Greaterf(t, mc.StdErr, 0.0, "MC estimate %+v: want inexact with a positive standard error", mc)
		d := math.Abs(mc.Value - exact)
		assert.InDeltaf(t, exact, mc.Value, 5*mc.StdErr, "trial %d: MC %g ± %g vs exact %g (%.1f standard errors)", trial, mc.Value, mc.StdErr, exact, d/mc.StdErr)
	}
}

func TestWeightedRadSwitchesToMonteCarlo(t *testing.T) {
	M := MaxExactSigns + 1
	a := make([]float64, M)
	X := mat.NewDense(M, 1, nil)
	for i := range a {
		a[i] = 1
		X.Set(i, 0, 1)
	}
	sup, err := LinearBallSup(X, a, 1) // = |Σ ε_i|
	require.NoError(t, err)
	got, err := WeightedRad(M, sup, radTestRand("switch"), 20000)
	require.NoError(t, err)
	// E|Σ_{i=1}^{21} ε_i| = 2·21·C(20,10)/2^21 exactly (a classical identity
	// for odd n: E|S_n| = n·C(n−1,(n−1)/2)/2^{n−1}).
	want := 21 * 184756.0 / (1 << 20)
	assert.Falsef(t, got.Exact, "Rad = %+v, want Monte Carlo near %g", got, want)
	assert.InDeltaf(t, want, got.Value, 5*got.StdErr, "Rad = %+v, want Monte Carlo near %g", got, want)
}

// LinearBallSup's closed form β‖Σa_iε_ix_i‖₂ against a brute-force search
// over a fine grid of directions in ℝ².
func TestLinearBallSupVsDirectionGrid(t *testing.T) {
	r := radTestRand("linear-grid")
	for trial := 0; trial < 20; trial++ {
		M := 1 + r.IntN(6)
		X := mat.NewDense(M, 2, nil)
		a, eps := make([]float64, M), make([]float64, M)
		for i := 0; i < M; i++ {
			X.Set(i, 0, r.NormFloat64())
			X.Set(i, 1, r.NormFloat64())
			a[i] = r.Float64()
		}
		RademacherSigns(r, eps)
		beta := 0.1 + 3*r.Float64()
		sup, err := LinearBallSup(X, a, beta)
		require.NoError(t, err)
		closed := sup(eps)
		brute := 0.0
		for k := 0; k < 20000; k++ {
			th := 2 * math.Pi * float64(k) / 20000
			v := []float64{beta * math.Cos(th), beta * math.Sin(th)}
			s := 0.0
			for i := 0; i < M; i++ {
				s += a[i] * eps[i] * radDot(v, X.RawRowView(i))
			}
			brute = math.Max(brute, s)
		}
		assert.LessOrEqualf(t, brute, closed*(1+1e-12)+1e-12, "trial %d: closed form %g, grid search %g", trial, closed, brute)
		assert.LessOrEqualf(t, closed-brute, 1e-6*(1+closed), "trial %d: closed form %g, grid search %g", trial, closed, brute)
	}
}

// RKHSBallSup's closed form R√(uᵀKu), u = a∘ε, against explicit members
// g = Σ_j θ_j k(·,x_j) of the ball (‖g‖²_ℋ = θᵀKθ ≤ R²): none exceeds it and
// the Cauchy–Schwarz maximizer θ = R·u/√(uᵀKu) attains it.
func TestRKHSBallSupVsExplicitFunctions(t *testing.T) {
	r := radTestRand("rkhs")
	for trial := 0; trial < 20; trial++ {
		M := 1 + r.IntN(6)
		X := mat.NewDense(M, 2, nil)
		a, eps := make([]float64, M), make([]float64, M)
		for i := 0; i < M; i++ {
			X.Set(i, 0, r.NormFloat64())
			X.Set(i, 1, r.NormFloat64())
			a[i] = r.Float64() + 0.01
		}
		RademacherSigns(r, eps)
		K, err := GaussianGram(X, 0.3+r.Float64())
		require.NoError(t, err)
		R := 0.5 + 2*r.Float64()
		sup, err := RKHSBallSup(K, a, R)
		require.NoError(t, err)
		closed := sup(eps)
		value := func(theta []float64) (obj, norm2 float64) {
			// g(x_i) = Σ_j θ_j K(i,j); objective Σ_i a_iε_i g(x_i).
			for i := 0; i < M; i++ {
				gi := 0.0
				for j := 0; j < M; j++ {
					gi += theta[j] * K.At(i, j)
					norm2 += theta[i] * K.At(i, j) * theta[j]
				}
				obj += a[i] * eps[i] * gi
			}
			return obj, norm2
		}
		u := make([]float64, M)
		for i := range u {
			u[i] = a[i] * eps[i]
		}
		_, uKu := value(u)
		best := make([]float64, M)
		for i := range best {
			best[i] = R * u[i] / math.Sqrt(uKu)
		}
		att, n2 := value(best)
		assert.InDeltaf(t, closed, att, 1e-9*(1+closed), "trial %d: maximizer attains %g (‖g‖² = %g), closed form %g", trial, att, n2, closed)
		assert.LessOrEqualf(t, n2, R*R*(1+1e-9), "trial %d: maximizer attains %g (‖g‖² = %g), closed form %g", trial, att, n2, closed)
		for k := 0; k < 500; k++ {
			theta := make([]float64, M)
			for j := range theta {
				theta[j] = r.NormFloat64()
			}
			_, n2 := value(theta)
			for j := range theta {
				theta[j] *= R / math.Sqrt(n2)
			}
			val, _ := value(theta)
			require.LessOrEqualf(t, val, closed*(1+1e-9)+1e-12, "trial %d: a member of the ball attains %g > closed form %g", trial, val, closed)
		}
	}
}

// ProductSup against the explicit finite product class.
func TestProductSupVsExplicitProduct(t *testing.T) {
	r := radTestRand("product")
	M, C, G := 3, 2, 3
	V := mat.NewDense(G, M, nil)
	a := []float64{0.5, 1, 2}
	for g := 0; g < G; g++ {
		for i := 0; i < M; i++ {
			V.Set(g, i, r.NormFloat64())
		}
	}
	base, err := FiniteClassSup(V, a)
	require.NoError(t, err)
	prod, err := ProductSup(C, M, base)
	require.NoError(t, err)
	var explicit []mat.Matrix
	for g1 := 0; g1 < G; g1++ {
		for g2 := 0; g2 < G; g2++ {
			W := mat.NewDense(M, C, nil)
			for i := 0; i < M; i++ {
				W.Set(i, 0, V.At(g1, i))
				W.Set(i, 1, V.At(g2, i))
			}
			explicit = append(explicit, W)
		}
	}
	vec, err := FiniteVectorClassSup(explicit, a)
	require.NoError(t, err)
	x, _ := WeightedRadExact(M*C, prod)
	y, _ := WeightedRadExact(M*C, vec)
	z, _ := WeightedRadExact(M, base)
	assert.InDeltaf(t, y, x, 1e-12, "product %g, explicit %g, C·Rad(base) %g: want all equal", x, y, float64(C)*z)
	assert.InDeltaf(t, float64(C)*z, x, 1e-12, "product %g, explicit %g, C·Rad(base) %g: want all equal", x, y, float64(C)*z)
}

func TestGaussianGram(t *testing.T) {
	X := mat.NewDense(3, 2, []float64{0, 0, 1, 0, 0, 2})
	K, err := GaussianGram(X, 1)
	require.NoError(t, err)
	want := [][]float64{{1, math.Exp(-0.5), math.Exp(-2)}, {math.Exp(-0.5), 1, math.Exp(-2.5)}, {math.Exp(-2), math.Exp(-2.5), 1}}
	for i := range want {
		for j := range want[i] {
			assert.InDeltaf(t, want[i][j], K.At(i, j), 1e-15, "K(%d,%d) = %g, want %g", i, j, K.At(i, j), want[i][j])
		}
	}
}

// MLPSup for m = 2 against a brute-force grid over the first-layer weight u
// (β times a dense grid of the unit disk in ℝ²), for ReLU and tanh.
func TestMLPSupDepth2VsGrid(t *testing.T) {
	r := radTestRand("mlp-grid")
	for _, mu := range []Activation{ReLU, Tanh} {
		for trial := 0; trial < 8; trial++ {
			M := 1 + r.IntN(5)
			X := mat.NewDense(M, 2, nil)
			a, eps := make([]float64, M), make([]float64, M)
			for i := 0; i < M; i++ {
				X.Set(i, 0, r.NormFloat64())
				X.Set(i, 1, r.NormFloat64())
				a[i] = r.Float64()
			}
			RademacherSigns(r, eps)
			beta := 0.3 + 2*r.Float64()
			got, w, err := MLPSup(2, X, a, beta, mu, eps, r, MLPSupOptions{})
			require.NoError(t, err)
			grid := 0.0
			for ri := 1; ri <= 200; ri++ {
				for k := 0; k < 400; k++ {
					th := 2 * math.Pi * float64(k) / 400
					u := []float64{beta * float64(ri) / 200 * math.Cos(th), beta * float64(ri) / 200 * math.Sin(th)}
					s := 0.0
					for i := 0; i < M; i++ {
						s += a[i] * eps[i] * mu.F(radDot(u, X.RawRowView(i)))
					}
					grid = math.Max(grid, beta*math.Abs(s))
				}
			}
			assert.GreaterOrEqualf(t, got, grid-1e-3*(1+grid), "%s trial %d: search %g, grid %g", mu.Name, trial, got, grid)
			assert.LessOrEqualf(t, got, grid+2e-2*(1+grid), "%s trial %d: search %g, grid %g", mu.Name, trial, got, grid)
			assert.NoErrorf(t, w.Validate(beta, 1e-12), "%s trial %d: witness not in 𝒩₂", mu.Name, trial)
			direct := 0.0
			for i := 0; i < M; i++ {
				direct += a[i] * eps[i] * w.Eval(X.RawRowView(i))
			}
			assert.InDeltaf(t, got, direct, 1e-9*(1+got), "%s trial %d: witness attains %g, reported %g", mu.Name, trial, direct, got)
		}
	}
}

// No explicit wide depth-2 network of the class exceeds the reduced
// supremum β·sup_u|Σ a_iε_iμ(⟨u,x_i⟩)| (independent check of the reduction).
func TestMLPSupDominatesWideNetworks(t *testing.T) {
	r := radTestRand("mlp-wide")
	M, p, d, beta := 4, 3, 6, 1.7
	X := mat.NewDense(M, p, nil)
	a, eps := make([]float64, M), make([]float64, M)
	for i := 0; i < M; i++ {
		for k := 0; k < p; k++ {
			X.Set(i, k, r.NormFloat64())
		}
		a[i] = r.Float64()
	}
	RademacherSigns(r, eps)
	sup, _, err := MLPSup(2, X, a, beta, ReLU, eps, r, MLPSupOptions{Restarts: 64, Steps: 200})
	require.NoError(t, err)
	for k := 0; k < 2000; k++ {
		U := mat.NewDense(d, p, nil)
		for j := 0; j < d; j++ {
			row := make([]float64, p)
			n := 0.0
			for l := range row {
				row[l] = r.NormFloat64()
				n += row[l] * row[l]
			}
			for l := range row {
				row[l] *= beta * r.Float64() / math.Sqrt(n)
			}
			U.SetRow(j, row)
		}
		v := make([]float64, d)
		n1 := 0.0
		for j := range v {
			v[j] = r.NormFloat64()
			n1 += math.Abs(v[j])
		}
		for j := range v {
			v[j] *= beta / n1
		}
		net := MLP{Weights: []*mat.Dense{U, mat.NewDense(1, d, v)}, Mu: ReLU}
		require.NoError(t, net.Validate(beta, 1e-12))
		s := 0.0
		for i := 0; i < M; i++ {
			s += a[i] * eps[i] * net.Eval(X.RawRowView(i))
		}
		require.LessOrEqualf(t, s, sup*(1+1e-9)+1e-12, "random width-%d network attains %g > reported supremum %g", d, s, sup)
	}
}

func TestMLPSupDepth1Exact(t *testing.T) {
	X := mat.NewDense(2, 2, []float64{3, 0, 0, 4})
	got, w, err := MLPSup(1, X, []float64{1, 1}, 2, ReLU, []float64{1, -1}, nil, MLPSupOptions{})
	require.NoError(t, err)
	assert.InDeltaf(t, 2*5.0, got, 1e-12, "sup = %g, want β‖(3,−4)‖ = 10", got)
	v := w.Eval([]float64{3, 0}) - w.Eval([]float64{0, 4})
	assert.InDeltaf(t, got, v, 1e-12, "witness attains %g, want %g", v, got)
}

func TestRademacherErrors(t *testing.T) {
	ok := func([]float64) float64 { return 0 }
	V := mat.NewDense(1, 2, []float64{1, 2})
	X := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	notPSD := mat.NewSymDense(2, []float64{1, 2, 2, 1})
	_, _, mlpErr3 := MLPSup(3, X, []float64{1, 1}, 1, ReLU, []float64{1, 1}, radTestRand("e"), MLPSupOptions{})
	_, _, mlpNoRand := MLPSup(2, X, []float64{1, 1}, 1, ReLU, []float64{1, 1}, nil, MLPSupOptions{})
	errs := []struct {
		name, want string
		err        error
	}{
		{"m=0", "m:", func() error { _, err := WeightedRadExact(0, ok); return err }()},
		{"m too big", "m:", func() error { _, err := WeightedRadExact(MaxExactSigns+1, ok); return err }()},
		{"nil oracle", "sup:", func() error { _, err := WeightedRadExact(2, nil); return err }()},
		{"NaN oracle", "NaN", func() error {
			_, err := WeightedRadExact(2, func([]float64) float64 { return math.NaN() })
			return err
		}()},
		{"MC nil rand", "rnd:", func() error { _, err := WeightedRadMC(3, ok, nil, 10); return err }()},
		{"MC draws", "draws:", func() error { _, err := WeightedRadMC(3, ok, radTestRand("x"), 1); return err }()},
		{"negative weight", "a: entry 1", func() error { _, err := FiniteClassSup(V, []float64{1, -1}); return err }()},
		{"columns", "values:", func() error { _, err := FiniteClassSup(V, []float64{1, 1, 1}); return err }()},
		{"NaN value", "values: entry (0,1)", func() error {
			_, err := FiniteClassSup(mat.NewDense(1, 2, []float64{1, math.NaN()}), []float64{1, 1})
			return err
		}()},
		{"beta", "beta:", func() error { _, err := LinearBallSup(X, []float64{1, 1}, -1); return err }()},
		{"not PSD", "smallest eigenvalue", func() error { _, err := RKHSBallSup(notPSD, []float64{1, 1}, 1); return err }()},
		{"radius", "R:", func() error {
			_, err := RKHSBallSup(mat.NewSymDense(1, []float64{1}), []float64{1}, math.Inf(1))
			return err
		}()},
		{"bandwidth", "bw:", func() error { _, err := GaussianGram(X, 0); return err }()},
		{"vector shape", "values[1]", func() error {
			_, err := FiniteVectorClassSup([]mat.Matrix{mat.NewDense(2, 2, nil), mat.NewDense(2, 3, nil)}, []float64{1, 1})
			return err
		}()},
		{"depth 3", "m:", mlpErr3},
		{"depth 2 nil rand", "rnd:", mlpNoRand},
		{"signs", "eps: entry 1", func() error {
			_, _, err := MLPSup(1, X, []float64{1, 1}, 1, ReLU, []float64{1, 0.5}, nil, MLPSupOptions{})
			return err
		}()},
		{"layer norm", "Weights[1]: row 0", MLP{Weights: []*mat.Dense{mat.NewDense(1, 2, []float64{1, 0}), mat.NewDense(1, 1, []float64{3})}, Mu: ReLU}.Validate(1, 0)},
		{"output rows", "output layer", MLP{Weights: []*mat.Dense{mat.NewDense(2, 2, nil)}}.Validate(1, 0)},
	}
	for _, e := range errs {
		assert.ErrorContainsf(t, e.err, e.want, "%s: error %v, want one containing %q", e.name, e.err, e.want)
	}
}

func BenchmarkWeightedRadExact16(b *testing.B) {
	r := radTestRand("bench")
	M := 16
	X := mat.NewDense(M, 3, nil)
	a := make([]float64, M)
	for i := 0; i < M; i++ {
		a[i] = r.Float64()
		for k := 0; k < 3; k++ {
			X.Set(i, k, r.NormFloat64())
		}
	}
	sup, _ := LinearBallSup(X, a, 1)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := WeightedRadExact(M, sup); err != nil {
			b.Fatal(err)
		}
	}
}

// The step (supp.eq.kernel: ind of rads r.v.) of the proof of Proposition
// `supp.prop: kernel_bound`: E_ε‖Σ_i a_iε_i k(·,x_i)‖²_ℋ = E εᵀAKAε =
// Σ_i a_i² k(x_i,x_i), by independence of the signs (enumerated exactly).
func TestKernelSecondMomentIdentity(t *testing.T) {
	r := radTestRand("second-moment")
	M := 6
	X := mat.NewDense(M, 2, nil)
	a := make([]float64, M)
	for i := 0; i < M; i++ {
		X.Set(i, 0, r.NormFloat64())
		X.Set(i, 1, r.NormFloat64())
		a[i] = r.Float64()
	}
	K, _ := GaussianGram(X, 0.7)
	K.ScaleSym(2.5, K) // k(x,x) = 2.5
	ball, err := RKHSBallSup(K, a, 1)
	require.NoError(t, err)
	got, _ := WeightedRadExact(M, func(eps []float64) float64 { v := ball(eps); return v * v })
	want := 0.0
	for i := range a {
		want += a[i] * a[i] * K.At(i, i)
	}
	assert.InDeltaf(t, want, got, 1e-12, "E‖Σaεk(·,x)‖² = %g, want Σa²k(x,x) = %g", got, want)
}

func BenchmarkMLPSupDepth2(b *testing.B) {
	r := radTestRand("bench-mlp")
	M := 6
	X := mat.NewDense(M, 3, nil)
	a, eps := make([]float64, M), make([]float64, M)
	for i := 0; i < M; i++ {
		a[i] = r.Float64()
		for k := 0; k < 3; k++ {
			X.Set(i, k, r.NormFloat64())
		}
	}
	RademacherSigns(r, eps)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, _, err := MLPSup(2, X, a, 1, Tanh, eps, r, MLPSupOptions{Restarts: 4, Steps: 25}); err != nil {
			b.Fatal(err)
		}
	}
}
