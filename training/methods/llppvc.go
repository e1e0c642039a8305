package methods

import (
	"fmt"
	"math"

	"github.com/llpfc/llpfc/training/loss"
)

// LLPPVC is LLP-PVC's name (Ma et al., "Learning from Label Proportions via
// Proportional Value Classification", ICLR 2026).
const LLPPVC = "llppvc"

func init() {
	RegisterBag(Descriptor{
		Name: LLPPVC, Label: "LLP-PVC", Order: 60, Style: 6,
		Paper:        "Ma et al., Learning from Label Proportions via Proportional Value Classification, ICLR 2026",
		Code:         "TianhaoMa5/ICLR2026_LLP-PVC@fe11a00:LLP-PVC.py",
		DefaultBatch: 4,
		Help:         "LLP-PVC: the Poisson-binomial likelihood of each class's count in each bag, from sigmoid outputs",
		// Their weight decay is args.weight_decay, which their parser never
		// defines, so the script stops there: the 5e-5 of easyllp.py, the
		// same harness.
		Authors: &Preset{Optimizer: "nesterov", LR: 2.5e-3, Momentum: 0.9, WeightDecay: 5e-5, BatchSize: 4,
			Settings: map[string]string{SettingPVCLikelihood: "fft"}, // their numerics (LLP-PVC.py@fe11a00:412-447)
			Source:   "LLP-PVC.py@fe11a00:874-875, 889-894, 970-976; weight decay easyllp.py@fe11a00:408-413"},
		Settings: []*Setting{&PVCLikelihoodSetting},
		Search:   DefaultSearch,
		Output:   Sigmoid,
	}, BagSpec{Objective: newLLPPVC, Init: initLLPPVC})
}

// PVCLikelihoodSetting is LLP-PVC's likelihood (Config.PVCLikelihood): exact
// by default, and the FFT — what llppvc trained before the setting existed
// — left out of a cell's key (Unstated), so that those cells keep theirs.
var PVCLikelihoodSetting = Setting{Name: SettingPVCLikelihood, Kind: KindChoice, Choices: []string{"exact", "fft"}, Default: "exact", Unstated: "fft",
	Help: "the count likelihood P(K_c = k_c): exact (in log space at every bag size and target) or fft (the authors' FFT product, floored far from the target, what llppvc trained before)"}

// LLP-PVC trains with the count likelihood (loss.PVC: the Poisson-binomial
// probability of each class's count in each bag, from sigmoid outputs) over
// minibatches of Config.BatchSize bags (the authors' 4,
// LLP-PVC.py@fe11a00:874-875). initLLPPVC prepares the model: as the authors do
// (init_fc_bias_sigmoid_to_1_over_k, LLP-PVC.py@fe11a00:28-36, 53-57), the
// output layer's bias starts at −log(C−1), so that every sigmoid starts at
// 1/C and each class's expected count at s/C: from the default bias 0 the
// expected counts s/2 lie so far from the true ones in large bags that the
// FFT product's coefficients there are round-off, and the loss has no
// gradient.
func initLLPPVC(env *Env) error {
	return setOutputBias(env, -math.Log(float64(env.Spec.NumClasses-1)))
}

// newLLPPVC is the run's loss.PVC, with its likelihood (Config.PVCLikelihood:
// exact unless the authors' FFT is asked for).
func newLLPPVC(env *Env) (loss.BagObjective, error) {
	return &loss.PVC{Likelihood: env.Config.PVCLikelihood}, nil
}

// setOutputBias sets the output layer's bias (the last learnable holding
// one value per class, 1×C or C) to v and sends it to the back end.
func setOutputBias(env *Env, v float64) error {
	C := env.Spec.NumClasses
	ps := env.Model.Learnables()
	for i := len(ps) - 1; i >= 0; i-- {
		p := ps[i]
		if s := p.Shape(); s.TotalSize() != C || s[len(s)-1] != C {
			continue // the bias is 1×C (Dense) or C
		}
		switch d := p.Value().Data().(type) {
		case []float32:
			for j := range d {
				d[j] = float32(v)
			}
		case []float64:
			for j := range d {
				d[j] = v
			}
		default:
			return fmt.Errorf("output bias %s: values of type %T", p.Name(), d)
		}
		return env.Backend.Push(p)
	}
	return fmt.Errorf("model %s: no output bias of %d values to start at −log(C−1)", env.Spec.Name, C)
}
