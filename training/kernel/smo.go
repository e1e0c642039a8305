package kernel

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/mat"
)

// QP is the dual problem of an SVM or SVR in libsvm's form:
//
//	minimize ½aᵀQa + pᵀa  subject to  yᵀa = 0, 0 ≤ a_t ≤ C_t,
//
// with Q(s, t) = y_s y_t K(Base[s], Base[t]) and y_t = ±1. C-SVC: Base is
// the identity and p = −1. ε-SVR (InvCal): 2l variables, Base = (0..l−1,
// 0..l−1), y = (+1…, −1…), p = (ε−z, ε+z).
type QP struct {
	// Gram, when not nil, is the symmetric base kernel matrix; otherwise K
	// gives its entries.
	Gram *mat.Dense
	K    func(i, j int) float64
	Base []int
	Y    []float64
	P    []float64
	C    []float64
}

// QPSolution is the optimum: a, the gradient G = Qa + p and ρ, so that the
// decision function is Σ_t y_t a_t K(Base[t], ·) − ρ.
type QPSolution struct {
	A, G  []float64
	Rho   float64
	Iters int
}

// DefaultQPTol is libsvm's default stopping tolerance (−e 0.001).
const DefaultQPTol = 1e-3

// SolveQP runs SMO with the second-order working-set selection (WSS2) of Fan,
// Chen and Lin (JMLR 2005), the algorithm of libsvm's Solver, from a = 0,
// until the maximal KKT violation m(a) − M(a) is below tol. ρ is the
// average of y_tG_t over the free variables (midpoint of the feasible
// interval when none is free), as libsvm computes it.
func SolveQP(q QP, tol float64) (*QPSolution, error) {
	n := len(q.Y)
	if len(q.Base) != n || len(q.P) != n || len(q.C) != n {
		return nil, errors.New("qp: lengths of base, y, p and C differ")
	}
	if q.Gram != nil {
		raw := q.Gram.RawMatrix()
		q.K = func(i, j int) float64 { return raw.Data[i*raw.Stride+j] }
	}
	a := make([]float64, n)
	G := append([]float64(nil), q.P...)
	QD := make([]float64, n)
	for t := range QD {
		QD[t] = q.K(q.Base[t], q.Base[t])
	}
	col := func(i int, out []float64) {
		if q.Gram != nil {
			raw := q.Gram.RawMatrix()
			row := raw.Data[q.Base[i]*raw.Stride:]
			for t := 0; t < n; t++ {
				out[t] = q.Y[i] * q.Y[t] * row[q.Base[t]]
			}
			return
		}
		for t := 0; t < n; t++ {
			out[t] = q.Y[i] * q.Y[t] * q.K(q.Base[i], q.Base[t])
		}
	}
	Qi, Qj := make([]float64, n), make([]float64, n)
	upper := func(t int) bool { return a[t] >= q.C[t] }
	lower := func(t int) bool { return a[t] <= 0 }
	const tau = 1e-12
	maxIter := max(10000000, 100*n)
	iter := 0
	for ; iter < maxIter; iter++ {
		// Select i: argmax over I_up of −y_tG_t.
		gmax, i := math.Inf(-1), -1
		for t := 0; t < n; t++ {
			if q.Y[t] > 0 {
				if !upper(t) && -G[t] >= gmax {
					gmax, i = -G[t], t
				}
			} else if !lower(t) && G[t] >= gmax {
				gmax, i = G[t], t
			}
		}
		if i < 0 {
			break
		}
		col(i, Qi)
		gmax2, j, objMin := math.Inf(-1), -1, math.Inf(1)
		for t := 0; t < n; t++ {
			if q.Y[t] > 0 {
				if !lower(t) {
					diff := gmax + G[t]
					if G[t] >= gmax2 {
						gmax2 = G[t]
					}
					if diff > 0 {
						quad := QD[i] + QD[t] - 2*q.Y[i]*Qi[t]
						if quad <= 0 {
							quad = tau
						}
						if o := -diff * diff / quad; o <= objMin {
							objMin, j = o, t
						}
					}
				}
			} else if !upper(t) {
				diff := gmax - G[t]
				if -G[t] >= gmax2 {
					gmax2 = -G[t]
				}
				if diff > 0 {
					quad := QD[i] + QD[t] + 2*q.Y[i]*Qi[t]
					if quad <= 0 {
						quad = tau
					}
					if o := -diff * diff / quad; o <= objMin {
						objMin, j = o, t
					}
				}
			}
		}
		if gmax+gmax2 < tol || j < 0 {
			break
		}
		col(j, Qj)
		oi, oj := a[i], a[j]
		Ci, Cj := q.C[i], q.C[j]
		if q.Y[i] != q.Y[j] {
			quad := QD[i] + QD[j] + 2*Qi[j]
			if quad <= 0 {
				quad = tau
			}
			delta := (-G[i] - G[j]) / quad
			diff := a[i] - a[j]
			a[i] += delta
			a[j] += delta
			if diff > 0 {
				if a[j] < 0 {
					a[j], a[i] = 0, diff
				}
			} else if a[i] < 0 {
				a[i], a[j] = 0, -diff
			}
			if diff > Ci-Cj {
				if a[i] > Ci {
					a[i], a[j] = Ci, Ci-diff
				}
			} else if a[j] > Cj {
				a[j], a[i] = Cj, Cj+diff
			}
		} else {
			quad := QD[i] + QD[j] - 2*Qi[j]
			if quad <= 0 {
				quad = tau
			}
			delta := (G[i] - G[j]) / quad
			sum := a[i] + a[j]
			a[i] -= delta
			a[j] += delta
			if sum > Ci {
				if a[i] > Ci {
					a[i], a[j] = Ci, sum-Ci
				}
			} else if a[j] < 0 {
				a[j], a[i] = 0, sum
			}
			if sum > Cj {
				if a[j] > Cj {
					a[j], a[i] = Cj, sum-Cj
				}
			} else if a[i] < 0 {
				a[i], a[j] = 0, sum
			}
		}
		di, dj := a[i]-oi, a[j]-oj
		for t := 0; t < n; t++ {
			G[t] += Qi[t]*di + Qj[t]*dj
		}
	}
	// ρ as libsvm's calculate_rho.
	ub, lb := math.Inf(1), math.Inf(-1)
	nFree, sumFree := 0, 0.0
	for t := 0; t < n; t++ {
		yG := q.Y[t] * G[t]
		switch {
		case upper(t):
			if q.Y[t] < 0 {
				ub = math.Min(ub, yG)
			} else {
				lb = math.Max(lb, yG)
			}
		case lower(t):
			if q.Y[t] > 0 {
				ub = math.Min(ub, yG)
			} else {
				lb = math.Max(lb, yG)
			}
		default:
			nFree++
			sumFree += yG
		}
	}
	rho := (ub + lb) / 2
	if nFree > 0 {
		rho = sumFree / float64(nFree)
	}
	if math.IsInf(rho, 0) || math.IsNaN(rho) {
		rho = 0
	}
	return &QPSolution{A: a, G: G, Rho: rho, Iters: iter}, nil
}
