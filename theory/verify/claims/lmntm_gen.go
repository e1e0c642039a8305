package claims

// Random and adversarial inputs for the claims of Section 4 (LMNTM risk,
// composite loss, weights) and Sections 5.1–5.3 / Appendices D–E (the
// probabilistic model of LLP). Every unexported name of the lmntm*.go files
// starts with "lm" so that the claims of other sections, written in the same
// package, cannot collide.

import (
	"fmt"
	"math"
	"math/rand"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/theory"
)

const lmEps = 0x1p-52 // float64 machine epsilon

// lmSimplex draws a point of Δ^n. kind 0: flat Dirichlet(1); 1: spiky
// (Dirichlet(0.1)-like, entries spread over many orders of magnitude);
// 2: with exact zeros (at least one entry kept); 3: a vertex.
func lmSimplex(r *rand.Rand, n, kind int) []float64 {
	p := make([]float64, n)
	switch kind {
	case 3:
		p[r.Intn(n)] = 1
		return p
	case 1:
		for i := range p {
			p[i] = math.Pow(r.Float64(), 10) + 1e-300
		}
	default:
		for i := range p {
			p[i] = r.ExpFloat64()
		}
		if kind == 2 {
			keep := r.Intn(n)
			for i := range p {
				if i != keep && r.Intn(2) == 0 {
					p[i] = 0
				}
			}
		}
	}
	return normalize(p)
}

// lmInterior draws a point of the open simplex with min entry ≥ floor/n·(…):
// flat, or spiky with entries down to about floor.
func lmInterior(r *rand.Rand, n int, floor float64) []float64 {
	p := make([]float64, n)
	spiky := r.Intn(3) == 0
	for i := range p {
		if spiky {
			p[i] = logUnif(r, floor, 1)
		} else {
			p[i] = floor + r.ExpFloat64()
		}
	}
	return normalize(p)
}

// lmColStoch draws a C×C column-stochastic matrix of the given kind:
// 0 generic (Dirichlet columns), 1 diagonally dominant, 2 heavy uniform noise
// (1−a)I + aN with a ∈ [0.5, 0.99], 3 sparse (exact zeros), 4 a permutation,
// 5 near-singular (two columns within 1e-6 of each other), 6 exactly singular
// (two equal columns), 7 with an all-zero row (hence singular).
func lmColStoch(r *rand.Rand, C, kind int) *mat.Dense {
	T := mat.NewDense(C, C, nil)
	setCol := func(j int, p []float64) {
		for i, v := range p {
			T.Set(i, j, v)
		}
	}
	switch kind {
	case 1:
		for j := 0; j < C; j++ {
			setCol(j, towardVertex(lmSimplex(r, C, 0), 0.3, 0.7, j))
		}
	case 2:
		return GenUniformNoiseT(C, unif(r, 0.5, 0.99))
	case 3:
		for j := 0; j < C; j++ {
			setCol(j, lmSimplex(r, C, 2))
		}
	case 4:
		perm := r.Perm(C)
		for j := 0; j < C; j++ {
			T.Set(perm[j], j, 1)
		}
	case 5, 6:
		for j := 0; j < C; j++ {
			setCol(j, lmSimplex(r, C, 0))
		}
		if C >= 2 {
			p := mat.Col(nil, 0, T)
			if kind == 5 {
				q := lmSimplex(r, C, 0)
				for i := range p {
					p[i] = (1-1e-6)*p[i] + 1e-6*q[i]
				}
			}
			setCol(1, p)
		}
	case 7:
		z := r.Intn(C)
		for j := 0; j < C; j++ {
			p := lmSimplex(r, C, 0)
			if C > 1 {
				p[z] = 0
				normalize(p)
			}
			setCol(j, p)
		}
	default:
		for j := 0; j < C; j++ {
			setCol(j, lmSimplex(r, C, r.Intn(2)))
		}
	}
	return T
}

// lmInvertibleColStoch draws a column-stochastic matrix that is invertible
// with condition number below 1e10 (kinds 0–5 of lmColStoch, redrawn when
// the condition is worse).
func lmInvertibleColStoch(r *rand.Rand, C int) *mat.Dense {
	for {
		if T := lmColStoch(r, C, r.Intn(6)); lmCond(T) < 1e10 {
			return T
		}
	}
}

// lmCentered draws n standard normals and subtracts their mean: a random
// direction d with Σ d = 0.
func lmCentered(r *rand.Rand, n int) []float64 {
	d := make([]float64, n)
	m := 0.0
	for i := range d {
		d[i] = r.NormFloat64()
		m += d[i]
	}
	for i := range d {
		d[i] -= m / float64(n)
	}
	return d
}

// lmCond is the condition number of M (mat.LU's estimate).
func lmCond(M mat.Matrix) float64 {
	var lu mat.LU
	lu.Factorize(M)
	return lu.Cond()
}

// lmModel draws a finite clean model with C classes on m points: interior
// prior, class-conditionals flat, spiky or with zeros.
func lmModel(r *rand.Rand, C, m int) *theory.FiniteModel {
	md := &theory.FiniteModel{Prior: lmInterior(r, C, 1e-3), Cond: make([][]float64, C)}
	for c := range md.Cond {
		md.Cond[c] = lmSimplex(r, m, r.Intn(3))
	}
	return md
}

// lmMatString formats a small matrix on one line for a counterexample.
func lmMatString(M mat.Matrix) string {
	r, c := M.Dims()
	s := "["
	for i := 0; i < r; i++ {
		if i > 0 {
			s += "; "
		}
		for j := 0; j < c; j++ {
			if j > 0 {
				s += " "
			}
			s += fmt.Sprintf("%.6g", M.At(i, j))
		}
	}
	return s + "]"
}
