package training

import (
	"fmt"
	"math"

	"github.com/llpfc/llpfc/training/loss"
)

func init() {
	RegisterMethod(MethodLLPPVC, func(env *MethodEnv) (Method, error) { return newLLPPVC(env) })
}

// newLLPPVC trains with LLP-PVC's count likelihood (loss.PVC: the
// Poisson-binomial probability of each class's count in each bag, from
// sigmoid outputs) over minibatches of Config.BatchSize bags (the authors'
// 4, LLP-PVC.py@fe11a00:874-875). As the authors do
// (init_fc_bias_sigmoid_to_1_over_k, LLP-PVC.py@fe11a00:28-36, 53-57), the
// output layer's bias starts at −log(C−1), so that every sigmoid starts at
// 1/C and each class's expected count at s/C: from the default bias 0 the
// expected counts s/2 lie so far from the true ones in large bags that the
// FFT product's coefficients there are round-off, and the loss has no
// gradient.
func newLLPPVC(env *MethodEnv) (Method, error) {
	if err := setOutputBias(env, -math.Log(float64(env.Spec.NumClasses-1))); err != nil {
		return nil, err
	}
	return newBagMethod(env, MethodLLPPVC, loss.HeadLogits, &loss.PVC{Likelihood: env.Config.PVCLikelihood})
}

// setOutputBias sets the output layer's bias (the last learnable holding
// one value per class, 1×C or C) to v and sends it to the back end.
func setOutputBias(env *MethodEnv, v float64) error {
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
