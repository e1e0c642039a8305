package estimators

import (
	"errors"
	"fmt"

	"github.com/llpfc/llpfc/internal/choice"
	"github.com/llpfc/llpfc/theory"
)

// Mode selects how the noisy prior α̂_i of a group is obtained (Section 5.4).
type Mode uint16

const (
	// ModeIdeal is Algorithm 1 (LLPFC-ideal), line 5: α_i = Γ_i^{-tr}σ with the
	// plug-in σ̂ and Γ̂_i. Build fails when α_i is not in the open simplex, i.e.
	// when Assumption `grouping assumption all groups` fails for a group.
	ModeIdeal Mode = iota + 1
	// ModeUniform is Algorithm 2 (LLPFC-uniform), lines 5–6:
	// α̂_i(c) = |b_{k_{i,c}}|/n_i with n_i = Σ_c |b_{k_{i,c}}|.
	ModeUniform
	// ModeApprox is Algorithm 3 (LLPFC-approx), line 6:
	// α̂_i = argmin_{α∈Δ^C} ‖σ̂ − Γ̂_iᵀα‖²₂, solved exactly by SimplexLS.
	ModeApprox
	// ModeMerge is the authors' code's variant (llpfclib/make_groups.py@1d0cbc5:78-124,
	// merge_bags), not in the paper: all bags are merged into C mega-bags
	// forming one group. As at 1d0cbc5 (the paper is silent, so the authors'
	// run is the default): C distinct bags drawn at random seed the C
	// mega-bags, every other bag joins mega-bag c with probability
	// ∝ γ̂(c)^t, and a mega-bag's proportions are the size-weighted
	// proportions of its members. Here α(c) = |mega-bag c|/n, so Γᵀα = σ̂
	// holds exactly and the Assumption `grouping assumption: ch` reduces to Γ
	// being invertible.
	ModeMerge
)

// Modes lists the modes in the order of Section 5.4.
var Modes = []Mode{ModeIdeal, ModeUniform, ModeApprox, ModeMerge}

// WeightScheme selects the group weights w ∈ Δ^N of the empirical risk
// (equation `llpfc-ideal: empirical risk`, Algorithms 1–3, last line).
type WeightScheme uint16

const (
	// WeightsUniform is w_i = 1/N.
	WeightsUniform WeightScheme = iota + 1
	// WeightsHM is w_i = HM_i/Σ_m HM_m, HM_i the harmonic mean of the group's
	// bag sizes n_{i,c} = |b_{k_{i,c}}|: the minimizer of the generalization
	// term √(Σ_i Σ_c w_i²/n_{i,c}) of Theorem `thm: geb` (Section 4.3, text
	// after the theorem; Appendix `suppsec:weights`).
	WeightsHM
	// WeightsCHVol is w_i ∝ the (C−1)-dimensional volume of the convex hull
	// of the group's proportions {γ̂_{k_{i,c}}} (a simplex in the affine hull
	// of Δ^C): groups whose proportions are spread out, where the Assumption
	// is likelier to hold (Section 5.2, after Assumption
	// `grouping assumption: ch`), weigh more. Volume = √C·|det Γ̂_i|/(C−1)!.
	// Not with Compat: Original (the authors' code at 1d0cbc5 raises
	// InvalidChoiceOfWeights for its ch_vol, make_groups.py:163-166).
	WeightsCHVol
)

// WeightSchemes lists the weight schemes.
var WeightSchemes = []WeightScheme{WeightsUniform, WeightsHM, WeightsCHVol}

// Compat selects the paper's algorithms (the default) or the behaviour of
// the authors' public code (github.com/Z-Jianxin/LLPFC) where it differs and
// the difference changes results; see PAPER_MAP.md,
// "Paper vs original code".
type Compat uint16

const (
	// CompatPaper follows Algorithms 1–3 of the paper.
	CompatPaper Compat = iota + 1
	// CompatOriginal reproduces the authors' code at commit 1d0cbc5
	// (llpfclib/make_groups.py and llpfc.py, loss_f; PAPER_MAP.md, "Paper vs
	// original code"): uniform mode uses α̂ = 1/C; approx solves
	// argmin_{α∈Δ} ‖Γ̂α − σ̂‖ (Γ̂ untransposed, as the paper's Section 5.4 text
	// and the authors' code, not Algorithm 3's Γ̂ᵀα); an instance of noisy
	// class c weighs α̂(c)/|b_c| normalised to sum 1 over the group's classes
	// (times the group weight); merge sets α = Γ^{-tr}σ̂ and weight 1 for
	// every instance; a class absent from a group is an error (the original
	// divides by σ̂_i(c) = 0 and then fails in matrix_rank). Only uniform group
	// weights and the modes uniform, approx and merge exist in that code; the
	// others are refused. The minibatch loss (normalised by the minibatch's
	// weight sum, probabilities clamped at 1e-8) is the trainer's part.
	CompatOriginal
)

// DefaultMergeSharpness is the exponent t of merge_bags in the original
// code: a bag joins mega-bag c with probability ∝ γ̂(c)^t.
const DefaultMergeSharpness = 10

// Options configures Build.
type Options struct {
	Mode    Mode
	Weights WeightScheme // "" means WeightsUniform
	Compat  Compat       // "" means CompatPaper
	// MergeSharpness is the exponent t of the random mega-bag assignment of
	// ModeMerge; 0 means DefaultMergeSharpness.
	MergeSharpness float64
}

// withDefaults fills the zero values and validates.
func (o Options) withDefaults() (Options, error) {
	if o.Weights == 0 {
		o.Weights = WeightsUniform
	}
	if o.Compat == 0 {
		o.Compat = CompatPaper
	}
	if o.MergeSharpness == 0 {
		o.MergeSharpness = DefaultMergeSharpness
	}
	if o.Mode == 0 {
		return o, &InputError{errors.New("options: no mode, want one of ideal, uniform, approx, merge")}
	}
	if !(o.MergeSharpness > 0) {
		return o, &InputError{fmt.Errorf("options: merge sharpness is %g, want > 0", o.MergeSharpness)}
	}
	if o.Compat == CompatOriginal {
		if o.Mode == ModeIdeal {
			return o, &InputError{fmt.Errorf("compat original: the authors' code at 1d0cbc5 has no ideal mode (make_groups.py:47-52 knows approx and uniform, make_groups.py:128 merge); use --compat paper")}
		}
		if o.Weights != WeightsUniform {
			return o, &InputError{fmt.Errorf("compat original: group weights %q: the authors' code at 1d0cbc5 accepts only uniform (make_groups.py:163-166 raises InvalidChoiceOfWeights otherwise); use --compat paper", o.Weights)}
		}
	}
	return o, nil
}

var (
	modes = choice.Set[Mode]{What: "mode", Names: []string{"", "ideal", "uniform", "approx", "merge"},
		Want: "one of ideal, uniform, approx, merge", Err: inputError}
	weightSchemes = choice.Set[WeightScheme]{What: "weights", Names: []string{"", "uniform", "hm", "chvol"},
		Want: "one of uniform, hm, chvol", Err: inputError}
	compats = choice.Set[Compat]{What: "compat", Names: []string{"", "paper", "original"},
		Want: "paper or original", Err: inputError}
)

func inputError(err error) error { return &InputError{err} }

// ParseMode parses ideal, uniform, approx or merge.
func ParseMode(s string) (Mode, error) { return modes.Parse(s) }

// ParseWeights parses uniform, hm or chvol.
func ParseWeights(s string) (WeightScheme, error) { return weightSchemes.Parse(s) }

// ParseCompat parses paper or original.
func ParseCompat(s string) (Compat, error) { return compats.Parse(s) }

func (m Mode) String() string         { return modes.String(m) }
func (w WeightScheme) String() string { return weightSchemes.String(w) }
func (c Compat) String() string       { return compats.String(c) }

// InputError marks an error caused by invalid input (a malformed bag set or
// option), as opposed to a property of valid data such as a failing
// Assumption. The command line maps it to exit status 2.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// ErrAssumption is wrapped by Build's error when ModeIdeal meets a group for
// which Assumption `grouping assumption all groups` (Section 5.3) fails. It
// is theory.ErrAssumption itself — the project has one such sentinel — so
// errors.Is(err, theory.ErrAssumption) holds from theory through
// estimators and training up to the command's exit status.
var ErrAssumption = theory.ErrAssumption

// The choices above are parsed where they enter — a spec or a result
// (encoding/json), a flag — by their UnmarshalText (settings typed at the
// edge); an empty text is the zero value, not stated. MarshalText
// writes the name.

// UnmarshalText parses a mode (empty: the zero value).
func (m *Mode) UnmarshalText(b []byte) error { return modes.Unmarshal(m, b) }

// MarshalText writes the mode's name.
func (m Mode) MarshalText() ([]byte, error) { return modes.Marshal(m) }

// UnmarshalText parses a weight scheme (empty: the zero value, uniform).
func (w *WeightScheme) UnmarshalText(b []byte) error { return weightSchemes.Unmarshal(w, b) }

// MarshalText writes the weight scheme's name.
func (w WeightScheme) MarshalText() ([]byte, error) { return weightSchemes.Marshal(w) }

// UnmarshalText parses a compat mode (empty: the zero value, paper).
func (c *Compat) UnmarshalText(b []byte) error { return compats.Unmarshal(c, b) }

// MarshalText writes the compat mode's name.
func (c Compat) MarshalText() ([]byte, error) { return compats.Marshal(c) }
