package theory

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// ProperLoss is a loss ℓ: Δ^C × Y → R (Section 2).
//
// Classes are 0-based in code (c ∈ {0,…,C−1}) and 1-based in the paper
// (c ∈ [C] = {1,…,C}): paper class c is code class c−1.
//
// Loss has no error result so that it can sit in inner loops; it returns NaN
// when c is out of range or len(q) == 0. Use EvalLoss, InnerRisk or
// ForwardCorrected for validated evaluation.
type ProperLoss interface {
	Name() string
	// Loss returns ℓ(q, c) for q in Δ^C and class c in 0..C-1 (0-based).
	Loss(q []float64, c int) float64
}

// MinInnerRisker is implemented by a ProperLoss that knows the closed form of
// its minimal inner risk C*_{ℓ,η} = inf_q C_{ℓ,η}(q) (Section 2).
// MinInnerRisk uses it for losses other than the three built-in ones.
type MinInnerRisker interface {
	MinInnerRisk(eta []float64) float64
}

var (
	// LogLoss is the log (cross-entropy) loss ℓ(q,c) = −log q_c, +Inf at
	// q_c = 0 (Section 2). It is strictly proper.
	LogLoss ProperLoss = logLoss{}
	// SquareLoss is the square (Brier) loss ℓ(q,c) = Σ_{c'} (1{c=c'} − q_{c'})²
	// (Section 2). It is strictly proper.
	SquareLoss ProperLoss = squareLoss{}
	// ZeroOneLoss is ℓ(q,c) = 1{c ≠ min argmax_j q_j}: the prediction is the
	// smallest index among the maximizers of q (the paper's tie rule,
	// Section 2, "arg max … breaking ties by the smallest index"). It is
	// proper but not strictly proper.
	ZeroOneLoss ProperLoss = zeroOneLoss{}
)

type logLoss struct{}

func (logLoss) Name() string { return "log" }

func (logLoss) Loss(q []float64, c int) float64 {
	if c < 0 || c >= len(q) {
		return math.NaN()
	}
	if q[c] <= 0 {
		return math.Inf(1)
	}
	return -math.Log(q[c])
}

// MinInnerRisk is the Shannon entropy H(η) = −Σ_c η_c log η_c with 0·log 0 = 0.
func (logLoss) MinInnerRisk(eta []float64) float64 { return Entropy(eta) }

type squareLoss struct{}

func (squareLoss) Name() string { return "square" }

func (squareLoss) Loss(q []float64, c int) float64 {
	if c < 0 || c >= len(q) {
		return math.NaN()
	}
	s := 0.0
	for j, v := range q {
		d := -v
		if j == c {
			d = 1 - v
		}
		s += d * d
	}
	return s
}

// MinInnerRisk is 1 − ‖η‖₂², attained at q = η.
func (squareLoss) MinInnerRisk(eta []float64) float64 {
	s := 0.0
	for _, v := range eta {
		s += v * v
	}
	return 1 - s
}

type zeroOneLoss struct{}

func (zeroOneLoss) Name() string { return "zero-one" }

func (zeroOneLoss) Loss(q []float64, c int) float64 {
	if c < 0 || c >= len(q) {
		return math.NaN()
	}
	if ArgMax(q) != c {
		return 1
	}
	return 0
}

// MinInnerRisk is 1 − max_c η_c, attained at any q whose argmax is a mode of η.
func (zeroOneLoss) MinInnerRisk(eta []float64) float64 {
	m := math.Inf(-1)
	for _, v := range eta {
		m = math.Max(m, v)
	}
	return 1 - m
}

// ArgMax returns min argmax_j q_j, the smallest index among the maximizers of
// q (the paper's tie rule for the 0-1 loss, Section 2), or −1 for an empty q.
// NaN entries are never selected.
func ArgMax(q []float64) int {
	best := -1
	for j, v := range q {
		if math.IsNaN(v) {
			continue
		}
		if best < 0 || v > q[best] {
			best = j
		}
	}
	return best
}

// Entropy returns the Shannon entropy H(η) = −Σ_c η_c log η_c (natural log,
// 0·log 0 = 0): the minimal inner log-loss risk (Section 2).
func Entropy(eta []float64) float64 {
	h := 0.0
	for _, v := range eta {
		if v > 0 {
			h -= v * math.Log(v)
		}
	}
	return h
}

// EvalLoss returns ℓ(q, c) after checking that q is in Δ^C (within
// SimplexTol) and that the 0-based class c is in 0..C−1.
func EvalLoss(l ProperLoss, q []float64, c int) (float64, error) {
	if l == nil {
		return 0, fmt.Errorf("l: nil loss")
	}
	if err := CheckSimplex("q", q, SimplexTol); err != nil {
		return 0, err
	}
	if c < 0 || c >= len(q) {
		return 0, fmt.Errorf("c: class %d out of range, want 0..%d (classes are 0-based in code, 1-based in the paper)", c, len(q)-1)
	}
	return l.Loss(q, c), nil
}

// checkT checks that T is a C×C column-stochastic matrix (within SimplexTol).
func checkT(T mat.Matrix, C int) error {
	if T == nil {
		return fmt.Errorf("T: nil matrix")
	}
	r, k := T.Dims()
	if r != C || k != C {
		return fmt.Errorf("T: is %d×%d, want C×C with C=%d", r, k, C)
	}
	return CheckColumnStochastic("T", T, SimplexTol)
}

// mulVec returns T·q as a new slice (no validation).
func mulVec(T mat.Matrix, q []float64) []float64 {
	r, k := T.Dims()
	out := make([]float64, r)
	for i := 0; i < r; i++ {
		s := 0.0
		for j := 0; j < k; j++ {
			s += T.At(i, j) * q[j]
		}
		out[i] = s
	}
	return out
}

// ForwardCorrected returns the forward-correction (FC) loss
// ℓ_T(q,c) = ℓ(Tq,c) (Section 2, Definition of the FC loss; Patrini et al.
// 2017). T must be a C×C column-stochastic matrix, q in Δ^C and c a 0-based
// class in 0..C−1 (paper class c+1).
func ForwardCorrected(l ProperLoss, T mat.Matrix, q []float64, c int) (float64, error) {
	if l == nil {
		return 0, fmt.Errorf("l: nil loss")
	}
	if err := CheckSimplex("q", q, SimplexTol); err != nil {
		return 0, err
	}
	if err := checkT(T, len(q)); err != nil {
		return 0, err
	}
	if c < 0 || c >= len(q) {
		return 0, fmt.Errorf("c: class %d out of range, want 0..%d (classes are 0-based in code, 1-based in the paper)", c, len(q)-1)
	}
	return l.Loss(mulVec(T, q), c), nil
}

// InnerRisk returns the inner risk C_{ℓ,η}(q) = Σ_c η_c ℓ(q,c) (Section 2),
// the conditional risk at a point whose class posterior is η when predicting
// q. Both eta and q must be in Δ^C. Terms with η_c = 0 contribute 0 even when
// ℓ(q,c) = +Inf (the convention 0·∞ = 0 of the expectation).
func InnerRisk(l ProperLoss, eta, q []float64) (float64, error) {
	if l == nil {
		return 0, fmt.Errorf("l: nil loss")
	}
	if err := CheckSimplex("eta", eta, SimplexTol); err != nil {
		return 0, err
	}
	if err := CheckSimplex("q", q, SimplexTol); err != nil {
		return 0, err
	}
	if len(eta) != len(q) {
		return 0, fmt.Errorf("q: has %d entries, want %d (= len(eta))", len(q), len(eta))
	}
	return innerRisk(l, eta, q), nil
}

func innerRisk(l ProperLoss, eta, q []float64) float64 {
	s := 0.0
	for c, e := range eta {
		if e == 0 {
			continue
		}
		s += e * l.Loss(q, c)
	}
	return s
}

// MinInnerRisk returns the minimal inner risk C*_{ℓ,η} = inf_{q∈Δ^C} C_{ℓ,η}(q)
// (Section 2) in closed form: the entropy H(η) for LogLoss, 1 − ‖η‖₂² for
// SquareLoss and 1 − max_c η_c for ZeroOneLoss. Other losses must implement
// MinInnerRisker.
func MinInnerRisk(l ProperLoss, eta []float64) (float64, error) {
	if l == nil {
		return 0, fmt.Errorf("l: nil loss")
	}
	if err := CheckSimplex("eta", eta, SimplexTol); err != nil {
		return 0, err
	}
	m, ok := l.(MinInnerRisker)
	if !ok {
		return 0, fmt.Errorf("l: loss %q has no closed-form minimal inner risk (implement MinInnerRisker)", l.Name())
	}
	return m.MinInnerRisk(eta), nil
}
