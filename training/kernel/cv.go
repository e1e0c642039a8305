package kernel

import (
	"fmt"
	"math"
)

// Folds assigns the bags to k folds as assign_fold of the LMMCM code
// (utils/model_utils.py): with P = ⌊nb/2⌋ pairs' worth of bags, the first
// k − P mod k folds get 2⌊P/k⌋ bags and the others 2⌊P/k⌋ + 2 (an odd last
// bag joins the last fold); the fold labels are randomly permuted over the
// bags. Even fold sizes let LLPFC and LMMCM pair the bags of every fold.
// It needs nb ≥ 2k.
func Folds(nb, k int, seed int64) ([][]int, error) {
	if nb < 2*k {
		return nil, fmt.Errorf("kernel: %d bags are too few for %d-fold cross-validation (want ≥ %d)", nb, k, 2*k)
	}
	P := nb / 2
	size, rem := 2*(P/k), P%k
	var label []int
	for f := 0; f < k; f++ {
		s := size
		if f >= k-rem {
			s += 2
		}
		for j := 0; j < s; j++ {
			label = append(label, f)
		}
	}
	for len(label) < nb {
		label = append(label, k-1)
	}
	perm := stream(seed, "folds").Perm(nb)
	folds := make([][]int, k)
	for pos, b := range perm {
		folds[label[pos]] = append(folds[label[pos]], b)
	}
	return folds, nil
}

// CVResult is the outcome of cross-validation: the chosen point, and per
// grid point the mean validation loss over the folds where it is finite.
type CVResult struct {
	Best   Params
	Grid   []Params
	Loss   []float64 // mean over folds with a finite loss (+Inf if none)
	Failed []int     // number of folds whose fit or loss failed
}

// CrossValidate chooses a grid point of m by k-fold cross-validation over
// bags: for each fold, fit on the other folds' bags and evaluate
// m.ValidationLoss on the fold's bags. Only features and bag proportions
// are used; Data holds no instance label. The smallest mean loss wins, the
// first in grid order on ties (MATLAB's min, used by the pSVM scripts).
func CrossValidate(m Method, d Data, k int, seed int64) (*CVResult, error) {
	if d.cache == nil {
		d = d.WithCache()
	}
	folds, err := Folds(len(d.Bags.Bags), k, seed)
	if err != nil {
		return nil, err
	}
	grid := m.Grid()
	res := &CVResult{Grid: grid, Loss: make([]float64, len(grid)), Failed: make([]int, len(grid))}
	best := math.Inf(1)
	res.Best = grid[0]
	for gi, p := range grid {
		sum, cnt := 0.0, 0
		for f := range folds {
			var train []int
			for g := range folds {
				if g != f {
					train = append(train, folds[g]...)
				}
			}
			s, err := m.Fit(d.sub(train), p, seed+int64(f))
			if err != nil {
				res.Failed[gi]++
				continue
			}
			l, err := m.ValidationLoss(s, d.sub(folds[f]), seed+int64(f))
			if err != nil || math.IsNaN(l) || math.IsInf(l, 0) {
				res.Failed[gi]++
				continue
			}
			sum += l
			cnt++
		}
		res.Loss[gi] = math.Inf(1)
		if cnt > 0 {
			res.Loss[gi] = sum / float64(cnt)
		}
		if res.Loss[gi] < best {
			best, res.Best = res.Loss[gi], p
		}
	}
	return res, nil
}
