package opencl

import (
	_ "embed"
	"fmt"

	"github.com/llpfc/llpfc/internal/opencl"
)

// bnExactSource is the back end's own kernels (kernels/bn_exact.cl): the
// batch-norm coefficients from statistics kept in double, so that the
// affine map, and with it every ReLU mask, rounds as on the CPU.
//
//go:embed kernels/bn_exact.cl
var bnExactSource string

// exactBN is the built bn_exact.cl.
type exactBN struct {
	fp64                  bool
	stats, coeffs, affine *opencl.Kernel
	statsWG               int
}

const elemWG = 64

func buildExactBN(ctx *opencl.Context) (*exactBN, error) {
	p, err := ctx.BuildProgram(bnExactSource, opencl.BuildOptions(ctx.Device()))
	if err != nil {
		return nil, fmt.Errorf("building the back end's batch-norm kernels: %w", err)
	}
	e := &exactBN{fp64: ctx.Device().FP64}
	for _, k := range []struct {
		name string
		dst  **opencl.Kernel
	}{{"bn_stats_split", &e.stats}, {"bn_coeffs_split", &e.coeffs}, {"bn_apply", &e.affine}} {
		if *k.dst, err = p.Kernel(k.name); err != nil {
			return nil, err
		}
	}
	e.statsWG = 256
	for e.statsWG > 1 && e.statsWG > e.stats.MaxWorkGroupSize() {
		e.statsWG /= 2
	}
	return e, nil
}

func (e *exactBN) acc(v float64) any {
	if e.fp64 {
		return v
	}
	return float32(v)
}

// statistics enqueues the mean and biased variance per channel of the
// first rows rows of x into split ([mean hi | mean lo | var hi | var lo]).
func (e *exactBN) statistics(x, split *opencl.Buffer, g opencl.BNGeom, rows int) error {
	return e.stats.Launch([]int{g.C * e.statsWG}, []int{e.statsWG}, x, split, g.N, g.C, g.HW, rows)
}

// coefficients enqueues the state's mean, variance, 1/√(var+ε) and affine
// map from split.
func (e *exactBN) coefficients(gamma, beta, split *opencl.Buffer, st *opencl.BNState, eps float64) error {
	return e.coeffs.Launch([]int{st.C}, []int{elemWG}, gamma, beta, split, st.Mean, st.Var, st.InvStd, st.A, st.B, st.C, e.acc(eps))
}

// apply enqueues y = a·x + b (ReLU'd when relu is set).
func (e *exactBN) apply(x, y *opencl.Buffer, st *opencl.BNState, g opencl.BNGeom, relu bool) error {
	r := 0
	if relu {
		r = 1
	}
	return e.affine.Launch([]int{g.N * g.C * g.HW}, []int{elemWG}, x, y, st.A, st.B, g.N, g.C, g.HW, r)
}

// splitPairs writes v (C values) as float pairs: dst[:C] the float
// values, dst[C:2C] what they miss.
func splitPairs(dst []float32, v []float64) {
	c := len(v)
	for i, x := range v {
		h := float32(x)
		dst[i], dst[c+i] = h, float32(x-float64(h))
	}
}

// joinPairs is splitPairs' inverse.
func joinPairs(src []float32, c int) []float64 {
	out := make([]float64, c)
	for i := range out {
		out[i] = float64(src[i]) + float64(src[c+i])
	}
	return out
}
