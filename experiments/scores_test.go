package experiments

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/stretchr/testify/assert"
)

// TestScoreByHand: a 3-class example worked out on paper.
func TestScoreByHand(t *testing.T) {
	y := []int{0, 0, 0, 1, 1, 2}
	pred := []int{0, 0, 1, 1, 2, 2}
	s := Score(y, pred, nil, 3)
	assert.Equal(t, [][]int{{2, 1, 0}, {0, 1, 1}, {0, 0, 1}}, s.Confusion)
	assert.InDelta(t, 4.0/6, s.Accuracy, 1e-15)
	assert.Equal(t, []float64{2.0 / 3, 0.5, 1}, s.PerClassAccuracy)
	// F1: class 0 p=1 r=2/3 → 0.8; class 1 p=1/2 r=1/2 → 0.5; class 2 p=1/2 r=1 → 2/3.
	assert.InDelta(t, (0.8+0.5+2.0/3)/3, s.MacroF1, 1e-15)
	assert.Nil(t, s.AUC, "AUC only for two classes")
}

// TestScoreProperties: on random labels and predictions, the macro-F1
// equals the mean over classes of 2PR/(P+R) computed from precision and
// recall (the F1 of an absent, never-predicted class 1, of a class without
// a true positive 0), the accuracy is the confusion matrix's trace over N,
// and the binary AUC equals the fraction of (positive, negative) pairs
// ordered right (ties ½), counted pair by pair.
func TestScoreProperties(t *testing.T) {
	params := gopter.DefaultTestParameters()
	params.MinSuccessfulTests = 200
	props := gopter.NewProperties(params)
	props.Property("macro-F1, accuracy and AUC agree with their definitions", prop.ForAll(
		func(n, C int, seed int64) bool {
			r := newRand(seed)
			y, pred, probs := make([]int, n), make([]int, n), make([]float64, 2*n)
			for i := range y {
				y[i], pred[i] = r.IntN(C), r.IntN(C)
				p := float64(r.IntN(5)) / 4 // ties on purpose
				probs[2*i], probs[2*i+1] = 1-p, p
			}
			s := Score(y, pred, probs, C)
			trace := 0
			for c := 0; c < C; c++ {
				trace += s.Confusion[c][c]
			}
			if math.Abs(s.Accuracy-float64(trace)/float64(n)) > 1e-12 {
				return false
			}
			var f1 float64
			for c := 0; c < C; c++ {
				var tp, fp, fn float64
				for i := range y {
					switch {
					case y[i] == c && pred[i] == c:
						tp++
					case pred[i] == c:
						fp++
					case y[i] == c:
						fn++
					}
				}
				switch {
				case tp+fp+fn == 0:
					f1++
				case tp > 0:
					p, rc := tp/(tp+fp), tp/(tp+fn)
					f1 += 2 * p * rc / (p + rc)
				}
			}
			if math.Abs(s.MacroF1-f1/float64(C)) > 1e-12 {
				return false
			}
			if C != 2 {
				return s.AUC == nil
			}
			var pairs, good float64
			for i := range y {
				for j := range y {
					if y[i] == 1 && y[j] == 0 {
						pairs++
						switch {
						case probs[2*i+1] > probs[2*j+1]:
							good++
						case probs[2*i+1] == probs[2*j+1]:
							good += 0.5
						}
					}
				}
			}
			if pairs == 0 {
				return s.AUC == nil
			}
			return s.AUC != nil && math.Abs(*s.AUC-good/pairs) < 1e-12
		},
		gen.IntRange(1, 40), gen.IntRange(2, 4), gen.Int64(),
	))
	props.TestingRun(t)
}

// newRand is a generator for the property's seed.
func newRand(seed int64) *rand.Rand { return rand.New(rand.NewPCG(uint64(seed), 29)) }
