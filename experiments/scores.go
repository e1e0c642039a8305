package experiments

import (
	"github.com/llpfc/llpfc/training/kernel"
)

// Scores are the instance-level metrics LLP papers report beside accuracy:
// macro-F1 (the unweighted mean over classes of
// 2·precision·recall/(precision + recall), a class never predicted nor
// present counting as 1 and one with no true positive as 0, as
// scikit-learn's f1_score(average="macro", zero_division=1) for the first
// and its definition for the second), per-class accuracy (recall), the
// confusion matrix (row: true class, column: predicted), and for two
// classes the AUC of the class-1 probability (kernel.AUC, ties counting
// one half).
type Scores struct {
	Accuracy         float64   `json:"accuracy"`
	MacroF1          float64   `json:"macro_f1"`
	PerClassAccuracy []float64 `json:"per_class_accuracy"`
	Confusion        [][]int   `json:"confusion"`
	// AUC is set for two classes when both occur (nil otherwise).
	AUC *float64 `json:"auc,omitempty"`
}

// Score compares predicted classes (and the class probabilities, N×C
// row-major, for the AUC; nil skips it) with the true labels y over C
// classes.
func Score(y, pred []int, probs []float64, C int) Scores {
	s := Scores{Confusion: make([][]int, C), PerClassAccuracy: make([]float64, C)}
	for c := range s.Confusion {
		s.Confusion[c] = make([]int, C)
	}
	right := 0
	for i, t := range y {
		s.Confusion[t][pred[i]]++
		if t == pred[i] {
			right++
		}
	}
	if len(y) > 0 {
		s.Accuracy = float64(right) / float64(len(y))
	}
	for c := 0; c < C; c++ {
		tp, actual, predicted := s.Confusion[c][c], 0, 0
		for k := 0; k < C; k++ {
			actual += s.Confusion[c][k]
			predicted += s.Confusion[k][c]
		}
		if actual > 0 {
			s.PerClassAccuracy[c] = float64(tp) / float64(actual)
		}
		switch {
		case actual == 0 && predicted == 0:
			s.MacroF1++ // nothing to find, nothing claimed
		case tp > 0:
			s.MacroF1 += 2 * float64(tp) / float64(actual+predicted)
		}
	}
	s.MacroF1 /= float64(C)
	if C == 2 && probs != nil {
		scores, pos := make([]float64, len(y)), make([]bool, len(y))
		for i, t := range y {
			scores[i], pos[i] = probs[2*i+1], t == 1
		}
		if auc, err := kernel.AUC(scores, pos); err == nil {
			s.AUC = &auc
		}
	}
	return s
}
