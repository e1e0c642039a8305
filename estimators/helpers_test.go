package estimators

import (
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"gonum.org/v1/gonum/mat"

	"github.com/stretchr/testify/assert"
)

// propCases is the number of random cases of each gopter property: 300 by
// default (the whole package runs in seconds), LLPFC_CASES to search longer.
var propCases = func() int {
	if n, err := strconv.Atoi(os.Getenv("LLPFC_CASES")); err == nil && n > 0 {
		return n
	}
	return 300
}()

// forAllSeeds runs check on propCases random int64 seeds with gopter (fixed
// master seed, so a failure replays), failing t with the reported case.
func forAllSeeds(t *testing.T, name string, check func(seed int64) (bool, error)) {
	t.Helper()
	params := gopter.DefaultTestParametersWithSeed(20221128)
	params.MinSuccessfulTests = propCases
	props := gopter.NewProperties(params)
	props.Property(name, prop.ForAll(func(seed int64) (bool, error) { return check(seed) }, gen.Int64()))
	assert.True(t, props.Run(gopter.NewFormatedReporter(true, 120, testWriter{t})), "property %s failed", name)
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) { w.t.Log(string(p)); return len(p), nil }

// randomBagSet draws numBags bags over C classes: each bag has a size in
// [1, 40] and empirical proportions of a multinomial sample from a random
// class distribution in which each class is switched off with probability
// zeroProb (so classes can be absent from bags and groups).
func randomBagSet(r *rand.Rand, C, numBags int, zeroProb float64) *BagSet {
	s := &BagSet{NumClasses: C}
	next := 0
	for k := 0; k < numBags; k++ {
		size := 1 + r.IntN(40)
		p := make([]float64, C)
		tot := 0.0
		for c := range p {
			if r.Float64() >= zeroProb {
				p[c] = r.ExpFloat64()
			}
			tot += p[c]
		}
		if tot == 0 {
			p[r.IntN(C)] = 1
			tot = 1
		}
		counts := make([]int, C)
		for j := 0; j < size; j++ {
			u := r.Float64() * tot
			c := 0
			for acc := p[0]; u >= acc && c < C-1; acc += p[c] {
				c++
			}
			for p[c] == 0 {
				c--
			}
			counts[c]++
		}
		prop := make([]float64, C)
		for c := range prop {
			prop[c] = float64(counts[c]) / float64(size)
		}
		idx := make([]int, size)
		for j := range idx {
			idx[j] = next
			next++
		}
		s.Bags = append(s.Bags, Bag{ID: 100 + 3*k, Size: size, Proportions: prop, Indices: idx})
	}
	return s
}

// noNaN reports whether every number of the reduction is finite where it
// reaches training: σ̂, α̂, σ̂_i, T̂, weights and instance weights.
func noNaN(red *Reduction) bool {
	fin := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	for _, v := range red.SigmaHat {
		if !fin(v) {
			return false
		}
	}
	for i, g := range red.Groups {
		if !fin(g.Weight) {
			return false
		}
		for c := range g.Alpha {
			if !fin(g.Alpha[c]) || !fin(g.Sigma[c]) || !fin(red.InstanceWeight(i, c)) {
				return false
			}
			for j := range g.Alpha {
				if !fin(g.T.At(c, j)) {
					return false
				}
			}
		}
	}
	return true
}

func matClose(a, b mat.Matrix, tol float64) bool {
	return mat.EqualApprox(a, b, tol)
}
