package kernel

import (
	"errors"
	"sort"
)

// AUC returns the area under the ROC curve of scores for the positives
// (pos[i]), i.e. the Mann–Whitney statistic P(s⁺ > s⁻) + ½P(s⁺ = s⁻) over all
// positive–negative pairs; tied scores count one half, which equals the
// trapezoidal area under the ROC curve with ties as one step (sklearn's
// roc_curve + auc). O(n log n). Errors if a class is absent.
func AUC(scores []float64, pos []bool) (float64, error) {
	if len(scores) != len(pos) {
		return 0, errors.New("auc: scores and labels differ in length")
	}
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return scores[idx[a]] < scores[idx[b]] })
	var nPos, nNeg float64
	var sum float64 // Σ over positives of (#negatives below + ½ #negatives tied)
	negBelow := 0.0
	for i := 0; i < len(idx); {
		j := i
		var p, n float64
		for ; j < len(idx) && scores[idx[j]] == scores[idx[i]]; j++ {
			if pos[idx[j]] {
				p++
			} else {
				n++
			}
		}
		sum += p * (negBelow + n/2)
		negBelow += n
		nPos += p
		nNeg += n
		i = j
	}
	if nPos == 0 || nNeg == 0 {
		return 0, errors.New("auc: needs both positive and negative instances")
	}
	return sum / (nPos * nNeg), nil
}
