package claims

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/stretchr/testify/assert"
)

// TestTolerancesRejectJustBeyond holds every named tolerance of the claims'
// verdicts to its documented size through the comparison that uses it: a
// point at twice the tolerance is refused, one at half of it accepted. A
// tolerance loosened tenfold (or tightened) fails here, whatever the claims'
// random cases happen to reach.
func TestTolerancesRejectJustBeyond(t *testing.T) {
	I := mat.NewDense(2, 2, []float64{1, 0, 0, 1})
	near3 := func(d, tol float64) bool { return relEq(1, 1+d, tol) } // |a − b| ≤ tol·(1 + |a| + |b|) ≈ 3·tol
	cases := []struct {
		name           string
		accept, refuse bool
	}{
		{"tolAbs = 1e-12 (leq)", leq(0.5e-12, 0), leq(2e-12, 0)},
		{"tolRel = 1e-9 (leq)", leq(1e6+0.5e-3, 1e6), leq(1e6+2e-3, 1e6)},
		{"tolAbs, tolRel (near)", near(1e6, 1e6+0.5e-3), near(1e6, 1e6+2e-3)},
		{"radTol = 1e-9 (radLE)", radLE(1+1e-9, 1), radLE(1+4e-9, 1)},
		{"secondRouteTol = 1e-6 (agreeT)", agreeT(I, 1+0.5e-6, 1), agreeT(I, 1+2e-6, 1)},
		{"gapTol = 1e-12 (stepDelta)", stepDelta([]calPoint{{Gap: 0.5, D: 1}})(0.5+0.5e-12) == 1, stepDelta([]calPoint{{Gap: 0.5, D: 1}})(0.5+2e-12) == 1},
		{"epsShift = 1e-14", 0.5e-14 <= epsShift, 2e-14 <= epsShift},
		{"flipZeroTol = 1e-12 (flipCase)", !flipCase(singularPoint(), 0.5e-12).OK, !flipCase(singularPoint(), 2e-12).OK},
		{"flipC1Min = 1e-9 (flipCase)", !flipCase(tiePoint(1e-9), 0).OK, !flipCase(tiePoint(0.25e-9), 0).OK},
		{"invertibleTol = 1e-10 (invertible)", invertible(mat.NewDense(2, 2, []float64{1, 0, 0, 2e-10})), invertible(mat.NewDense(2, 2, []float64{1, 0, 0, 0.5e-10}))},
		{"lmCaliTol = 1e-13", near3(1.5e-13, lmCaliTol), near3(6e-13, lmCaliTol)},
		{"lmLambda0Tol = 1e-13", near3(1.5e-13, lmLambda0Tol), near3(6e-13, lmLambda0Tol)},
		{"lmHMTol = 1e-13", near3(1.5e-13, lmHMTol), near3(6e-13, lmHMTol)},
		{"lmEmpTol = 1e-12", near3(1.5e-12, lmEmpTol), near3(6e-12, lmEmpTol)},
		{"lmCfmTol = 1e-12", 0.5e-12 <= lmCfmTol, 2e-12 <= lmCfmTol},
		{"chainTol = 1e-12", 1+0.5e-12 <= 1*(1+chainTol), 1+2e-12 <= 1*(1+chainTol)},
		{"fisherDistTol = 1e-4", 0.5e-4 <= fisherDistTol, 2e-4 <= fisherDistTol},
	}
	for _, c := range cases {
		assert.Truef(t, c.accept, "%s: a point at half the tolerance is refused", c.name)
		assert.Falsef(t, c.refuse, "%s: a point at twice the tolerance is accepted", c.name)
	}
}

// tiePoint is T = I, the log loss, η = (½ + h, ½ − h) and q = (0.4, 0.6):
// the excess 0-1 risk is 2h.
func tiePoint(h float64) probePoint {
	return probePoint{Kind: "hand", Loss: plLog, T: mat.NewDense(2, 2, []float64{1, 0, 0, 1}), Eta: []float64{0.5 + h, 0.5 - h}, Q: []float64{0.4, 0.6}}
}
