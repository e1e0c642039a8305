package kernel

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/estimators"
)

// Data is a binary LLP training set: the raw feature rows and the bags.
// Bags.NumClasses is 2; Proportions are (1−p, p), p the fraction of
// positives (class 1); Indices index the rows of X. Nothing here carries an
// instance label: a method fitted on Data cannot see one.
type Data struct {
	X    *mat.Dense
	Cont []bool // columns to standardize (nil: all)
	Bags *estimators.BagSet

	cache *distCache // see WithCache
}

// sub returns the data restricted to the bags at the given positions.
func (d Data) sub(pos []int) Data {
	s := &estimators.BagSet{NumClasses: d.Bags.NumClasses}
	for _, k := range pos {
		s.Bags = append(s.Bags, d.Bags.Bags[k])
	}
	return Data{X: d.X, Cont: d.Cont, Bags: s, cache: d.cache}
}

// prop returns the fraction of positives of bag k.
func (d Data) prop(k int) float64 { return d.Bags.Bags[k].Proportions[1] }

// Params are one point of a method's hyperparameter grid. Unused fields are 0.
type Params struct {
	Lambda float64 `json:"lambda,omitempty"` // LLPFC, LMMCM: regularization λ
	C      float64 `json:"C,omitempty"`      // InvCal, alter-∝SVM: loss weight
	Cp     float64 `json:"Cp,omitempty"`     // alter-∝SVM: proportion-loss weight C_p
	Eps    float64 `json:"eps,omitempty"`    // InvCal: ε of the ε-insensitive loss
	Gamma  float64 `json:"gamma,omitempty"`  // InvCal, alter-∝SVM: kernel width (0: 1/(d·Var X))
}

func (p Params) String() string {
	s := ""
	add := func(name string, v float64) {
		if v != 0 {
			if s != "" {
				s += " "
			}
			s += fmt.Sprintf("%s=%g", name, v)
		}
	}
	add("lambda", p.Lambda)
	add("C", p.C)
	add("Cp", p.Cp)
	add("eps", p.Eps)
	add("gamma", p.Gamma)
	return s
}

// Scorer scores raw feature rows; larger means more likely positive.
type Scorer interface {
	Score(X mat.Matrix) []float64
}

// Method is one of the five methods of Table `tab:binary exp`.
type Method interface {
	Name() string
	// Grid lists the hyperparameters cross-validation chooses from.
	Grid() []Params
	// Fit trains on the bags of d with hyperparameters p; seed fixes every
	// random choice (grouping, landmarks, start).
	Fit(d Data, p Params, seed int64) (Scorer, error)
	// ValidationLoss is the method's model-selection criterion on held-out
	// bags, computed from the scores of their instances and their label
	// proportions only.
	ValidationLoss(s Scorer, d Data, seed int64) (float64, error)
}

// LambdaGrid is λ ∈ {1, 10⁻¹, …, 10⁻⁵} (appendix; run_experiment.py).
var LambdaGrid = []float64{1, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5}

// errNoTraining is returned when no instance carries weight.
var errNoTraining = errors.New("kernel: no bag pair with distinct label proportions to train on")

// log1pexp returns log(1+eˣ) without overflow.
func log1pexp(x float64) float64 {
	if x > 0 {
		return x + math.Log1p(math.Exp(-x))
	}
	return math.Log1p(math.Exp(x))
}

// sigmoid returns 1/(1+e^{−x}).
func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// fitSmooth standardizes the rows idx of d.X, builds the RBF basis with
// γ = 1/(d·Var(Z)), and minimizes Σ loss + λθᵀRθ from θ ~ U(−½, ½), b = 0.
func fitSmooth(d Data, idx []int, lambda float64, bias bool, maxExact int, seed int64,
	loss func(rows []int) InstanceLoss) (*Model, error) {
	if len(idx) == 0 {
		return nil, errNoTraining
	}
	Xtr := rows(d.X, idx)
	std := FitStandardizer(Xtr, d.Cont)
	Z := std.Apply(Xtr)
	basis := NewBasis(RBF, ScaleGamma(Z), Z, maxExact, stream(seed, "landmarks"))
	A, R := basis.Design(Z)
	o := &Objective{A: A, R: R, Lambda: lambda, Bias: bias, Loss: loss(idx)}
	x0 := initTheta(o.dim(), stream(seed, "init"))
	if bias {
		x0[len(x0)-1] = 0
	}
	x, _, err := DefaultSolver.Minimize(o, x0)
	if err != nil {
		return nil, err
	}
	theta, b := o.split(x)
	return &Model{Std: std, Basis: basis, Theta: theta, B: b}, nil
}
