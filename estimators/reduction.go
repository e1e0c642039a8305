package estimators

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/theory"
)

// KKTTol is the tolerance of the KKT check Build applies to every α̂ of
// ModeApprox (CheckSimplexLSKKT).
const KKTTol = 1e-9

// StreamName is the name of the random stream (internal/rng) from which
// BuildSeed draws partitions and mega-bag assignments.
const StreamName = "groups"

// Group is one group G_i of C bags (Section 5.3) with its estimates.
type Group struct {
	// Bags holds, in row order c = 0..C−1, the position in BagSet.Bags of
	// the bag b_{k_{i,c}} whose instances get the noisy label c. For
	// ModeMerge, row c is a mega-bag and Bags[c] is its first member; see
	// Members.
	Bags []int
	// Members[c] lists the positions of the bags forming row c: {Bags[c]}
	// except for ModeMerge, where it lists every bag of mega-bag c.
	Members [][]int
	// Sizes[c] = n_{i,c} = |b_{k_{i,c}}|, the number of instances with noisy
	// label c in the group (Section 4.1).
	Sizes []int
	// Gamma is Γ̂_i, row c = γ̂_{k_{i,c}} (Algorithm 2/3, line 4/5).
	Gamma *mat.Dense
	// Alpha is the noisy prior α̂_i (Algorithm 1 line 5, Algorithm 2 line 6,
	// Algorithm 3 line 6, by Options.Mode).
	Alpha []float64
	// Sigma is σ̂_i = Γ̂_iᵀα̂_i (Algorithm 2/3, line 7); for ModeIdeal it is σ̂
	// itself (Algorithm 1, line 7 divides by σ).
	Sigma []float64
	// T is T̂_i, T̂_i(c1,c2) = γ̂_{k_{i,c1}}(c2)·α̂_i(c1)/σ̂_i(c2) = P(noisy c1 |
	// clean c2) (Algorithm 2/3, line 9; Algorithm 1, line 7). Column c2 with
	// σ̂_i(c2) = 0 is the unit vector e_{c2} (see AbsentClasses).
	T *mat.Dense
	// Weight is the group weight w_i.
	Weight float64
	// Diagnostics describe how well posed the group is.
	Diagnostics Diagnostics
}

// Diagnostics are per-group indicators of an ill-posed LLN problem.
// Non-finite values (a singular matrix) are +Inf.
type Diagnostics struct {
	RankGamma int     // numerical rank of Γ̂_i (SVD, tolerance C·ε·s_max)
	CondGamma float64 // 2-norm condition number s_max/s_min of Γ̂_i
	RankT     int     // numerical rank of T̂_i
	CondT     float64 // 2-norm condition number of T̂_i
	// InvNorm1T is ‖T̂_i⁻¹‖₁, the noise constant of Proposition
	// `theorem: cali_lowerb` (theory.InvNorm1).
	InvNorm1T float64
	// CalibrationFactor is √2‖T̂_i⁻¹‖₁: Proposition `theorem: cali_lowerb`
	// gives θ(ε) ≥ ε²/(2‖T⁻¹‖₁²) for the log loss, so an excess 0-1 risk ε
	// needs excess surrogate risk of order (ε/(√2‖T̂⁻¹‖₁))²: this is the
	// factor by which the noise inflates the excess risk bound.
	CalibrationFactor float64
	// Lambda0 is |λ_{ℓ_T̂}|₀ = max_c −log((1/C)Σ_j T̂(c,j)) (Section 4.3,
	// after Proposition `lip.upper.bd.cel`; theory.Lambda0).
	Lambda0 float64
	// AssumptionHolds reports Assumption `grouping assumption: ch` for Γ̂_i
	// and σ̂: a unique α ∈ open simplex with Γ̂_iᵀα = σ̂ (theory.AssumptionCH).
	AssumptionHolds bool
	// Residual is ‖σ̂ − Γ̂_iᵀα̂_i‖₂, zero (to rounding) when the plug-in σ̂ is
	// reproduced exactly (always for ideal and merge).
	Residual float64
	// AbsentClasses lists the classes c with σ̂_i(c) = 0: no bag of the group
	// with α̂_i > 0 contains class c. Policy (documented on Build): column c
	// of T̂_i is e_c.
	AbsentClasses []int
	// ZeroRows lists the noisy labels c with α̂_i(c) = 0: row c of T̂_i is 0
	// and the instances of that bag carry weight 0 (left out of Instances).
	ZeroRows []int
}

// Reduction is the result of the LLP→LMNTM reduction of Section 5 for one
// partition of the bags.
type Reduction struct {
	Set        *BagSet
	Options    Options
	NumClasses int
	// SigmaHat is σ̂ = Σ_k |b_k|γ̂_k / Σ_k |b_k| over all bags (Algorithm 3,
	// line 2), including leftover bags.
	SigmaHat []float64
	Groups   []Group
	// Leftover lists the positions of the bags in no group (when the number
	// of bags is not a multiple of C; Section 5.4, last paragraph). They are
	// resampled at every Build.
	Leftover []int
	// GeneralizationTerm is √(Σ_i w_i² Σ_c α̂_i(c)²/n_{i,c}), the weight factor
	// of the generalization bound (proof of Theorem `thm: geb`;
	// theory.AlphaWeightTerm).
	GeneralizationTerm float64
}

// SigmaHat returns σ̂ = Σ_k |b_k|γ̂_k / Σ_k |b_k| (Algorithm 3, line 2; Section
// 5.4: "the label proportion of all training data points"). The original
// code computes the same quantity. The set must be valid.
func SigmaHat(set *BagSet) []float64 {
	s := make([]float64, set.NumClasses)
	n := 0.0
	for _, b := range set.Bags {
		for c, p := range b.Proportions {
			s[c] += float64(b.Size) * p
		}
		n += float64(b.Size)
	}
	for c := range s {
		s[c] /= n
	}
	return s
}

// Partition draws a uniformly random partition of the positions
// 0..numBags−1 into N = ⌊numBags/C⌋ groups of C ordered bags (Algorithm 1,
// line 2): a uniformly random permutation is cut into consecutive blocks of
// C, so every ordered assignment of bags to (group, row) slots is equally
// likely. The numBags − NC positions after the last block are the leftover
// bags (Section 5.4, last paragraph: "randomly resample NC bags"); each call
// draws them afresh.
func Partition(numBags, C int, r *rand.Rand) (groups [][]int, leftover []int, err error) {
	if C < 1 {
		return nil, nil, &InputError{fmt.Errorf("partition: C is %d, want ≥ 1", C)}
	}
	if numBags < C {
		return nil, nil, &InputError{fmt.Errorf("partition: %d bags, want at least C=%d to form one group", numBags, C)}
	}
	perm := r.Perm(numBags)
	N := numBags / C
	groups = make([][]int, N)
	for i := range groups {
		groups[i] = perm[i*C : (i+1)*C : (i+1)*C]
	}
	leftover = perm[N*C:]
	if len(leftover) == 0 {
		leftover = nil
	}
	return groups, leftover, nil
}

// BuildSeed is Build with the stream rng.New(seed, StreamName); it equals
// BuildRound(set, opts, seed, 0).
func BuildSeed(set *BagSet, opts Options, seed int64) (*Reduction, error) {
	return Build(set, opts, rng.New(seed, StreamName))
}

// RoundStreamName is the name of the random stream of regrouping round r:
// StreamName for r = 0, "groups/r" after.
func RoundStreamName(round int) string {
	if round == 0 {
		return StreamName
	}
	return fmt.Sprintf("%s/%d", StreamName, round)
}

// BuildRound is the reduction of regrouping round r of a run with the given
// seed (§5.4, last paragraph, and App. "Implementation Details of LLPFC":
// the bags are repartitioned every few epochs, and leftover bags are
// resampled each time). Every round has its own stream
// rng.New(seed, RoundStreamName(round)), so round r is reproducible on its
// own (resuming from a checkpoint needs no replay of earlier rounds).
func BuildRound(set *BagSet, opts Options, seed int64, round int) (*Reduction, error) {
	if round < 0 {
		return nil, &InputError{fmt.Errorf("regrouping round is %d, want ≥ 0", round)}
	}
	return Build(set, opts, rng.New(seed, RoundStreamName(round)))
}

// TransitionMatrices returns T̂_1, …, T̂_N in group order.
func (red *Reduction) TransitionMatrices() []*mat.Dense {
	out := make([]*mat.Dense, len(red.Groups))
	for i := range red.Groups {
		out[i] = red.Groups[i].T
	}
	return out
}

// Weights returns the group weights w ∈ Δ^N in group order.
func (red *Reduction) Weights() []float64 {
	out := make([]float64, len(red.Groups))
	for i := range red.Groups {
		out[i] = red.Groups[i].Weight
	}
	return out
}

// Build performs the reduction of Section 5 on a valid bag set:
//
//  1. σ̂ (Algorithm 3, line 2);
//  2. a random partition into groups of C bags (Algorithm 1, line 2), or
//     for ModeMerge one group of C mega-bags;
//  3. per group Γ̂_i, α̂_i (by opts.Mode), σ̂_i = Γ̂_iᵀα̂_i and T̂_i
//     (Algorithms 1–3, lines 4–9);
//  4. the group weights w (opts.Weights), the diagnostics and the
//     generalization term.
//
// Absent classes. When σ̂_i(c) = 0 (class c occurs in no bag of the group
// that has α̂_i > 0), column c of T̂_i is 0/0 in the paper's formula. Build
// sets it to the unit vector e_c. Why: (a) a column of T is P(Ỹ=·|Y=c), and
// with σ̂_i(c) = 0 the group's model P̄_T̂ puts no mass on Y = c, so every
// column-stochastic choice defines the same noisy distribution P_T̂ and the
// same population risk; (b) e_c keeps T̂_i column-stochastic and finite, so no
// NaN reaches training; (c) the alternatives that do not depend on the data
// of the group — the uniform column or the column α̂_i — are in the span of
// the other columns (rows of Γ̂_i sum to 1), which makes T̂_i singular,
// whereas e_c does not. The classes are listed in Diagnostics.AbsentClasses.
// With CompatOriginal this is an error instead (the original divides by 0).
//
// Zero noisy prior. When α̂_i(c) = 0 (approx may put a bag on the boundary),
// row c of T̂_i is 0 and the bag's instances have weight w_i·0/|b| = 0 in
// Algorithm 3; the forward-corrected log loss of such an instance is
// 0·log 0, so Instances leaves them out. Listed in Diagnostics.ZeroRows.
//
// ModeIdeal returns an error wrapping ErrAssumption, naming the group and
// its bags, when α_i ∉ open simplex. Invalid input gives an *InputError.
func Build(set *BagSet, opts Options, r *rand.Rand) (*Reduction, error) {
	red, opts, err := newReduction(set, opts)
	if err != nil {
		return nil, err
	}
	if r == nil {
		return nil, &InputError{errors.New("random stream: nil")}
	}
	if opts.Mode == ModeMerge {
		mega, err := MergeAssignment(set, opts, r)
		if err != nil {
			return nil, err
		}
		return red.finishMerge(mega)
	}
	parts, leftover, err := Partition(len(set.Bags), set.NumClasses, r)
	if err != nil {
		return nil, err
	}
	return red.finishGroups(parts, leftover)
}

// BuildPartition is Build with a given partition instead of a random one:
// groups[i][c] is the position in set.Bags of the bag whose instances get
// noisy label c in group i; bags in no group are the leftover. It serves
// audits that replay a grouping drawn elsewhere (the authors' golden outputs,
// fixtures/authors). ModeMerge takes BuildMerged instead.
func BuildPartition(set *BagSet, opts Options, groups [][]int) (*Reduction, error) {
	red, opts, err := newReduction(set, opts)
	if err != nil {
		return nil, err
	}
	if opts.Mode == ModeMerge {
		return nil, &InputError{errors.New("partition: mode merge has mega-bags, not groups; use BuildMerged")}
	}
	used := make([]bool, len(set.Bags))
	for i, g := range groups {
		if len(g) != set.NumClasses {
			return nil, &InputError{fmt.Errorf("partition: group %d has %d bags, want C=%d", i, len(g), set.NumClasses)}
		}
		for _, p := range g {
			if p < 0 || p >= len(set.Bags) || used[p] {
				return nil, &InputError{fmt.Errorf("partition: group %d: bag position %d out of range or used twice", i, p)}
			}
			used[p] = true
		}
	}
	if len(groups) == 0 {
		return nil, &InputError{errors.New("partition: no group")}
	}
	var leftover []int
	for p, u := range used {
		if !u {
			leftover = append(leftover, p)
		}
	}
	return red.finishGroups(groups, leftover)
}

// BuildMerged is the ModeMerge reduction with a given assignment of bags to
// mega-bags: mega[k] ∈ 0..C−1 for the bag at position k (see
// MergeAssignment).
func BuildMerged(set *BagSet, opts Options, mega []int) (*Reduction, error) {
	red, opts, err := newReduction(set, opts)
	if err != nil {
		return nil, err
	}
	if opts.Mode != ModeMerge {
		return nil, &InputError{fmt.Errorf("merged: mode %q, want merge", opts.Mode)}
	}
	if len(mega) != len(set.Bags) {
		return nil, &InputError{fmt.Errorf("merged: %d assignments for %d bags", len(mega), len(set.Bags))}
	}
	for k, c := range mega {
		if c < 0 || c >= set.NumClasses {
			return nil, &InputError{fmt.Errorf("merged: bag position %d assigned to mega-bag %d, want 0..%d", k, c, set.NumClasses-1)}
		}
	}
	return red.finishMerge(mega)
}

// newReduction validates the set and the options and returns the reduction
// with σ̂ filled in.
func newReduction(set *BagSet, opts Options) (*Reduction, Options, error) {
	if set == nil {
		return nil, opts, &InputError{errors.New("bag set: nil")}
	}
	if err := set.Validate(); err != nil {
		return nil, opts, &InputError{err}
	}
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, opts, err
	}
	return &Reduction{Set: set, Options: opts, NumClasses: set.NumClasses, SigmaHat: SigmaHat(set)}, opts, nil
}

// finishGroups builds every group of the partition, then the weights.
func (red *Reduction) finishGroups(parts [][]int, leftover []int) (*Reduction, error) {
	red.Leftover = leftover
	red.Groups = make([]Group, len(parts))
	for i, bags := range parts {
		g, err := buildGroup(red.Set, red.Options, red.SigmaHat, bags)
		if err != nil {
			return nil, fmt.Errorf("group %d (bags %s): %w", i, bagIDs(red.Set, bags), err)
		}
		red.Groups[i] = *g
	}
	return red.finish()
}

// finishMerge builds the one group of mega-bags, then the weights.
func (red *Reduction) finishMerge(mega []int) (*Reduction, error) {
	g, err := buildMerge(red.Set, red.Options, red.SigmaHat, mega)
	if err != nil {
		return nil, err
	}
	red.Groups = []Group{*g}
	return red.finish()
}

// finish sets the group weights, the diagnostics and the generalization term.
func (red *Reduction) finish() (*Reduction, error) {
	if err := red.setWeights(); err != nil {
		return nil, err
	}
	for i := range red.Groups {
		red.Groups[i].Diagnostics.fill(&red.Groups[i], red.SigmaHat)
	}
	C := red.NumClasses
	alphas := make([][]float64, len(red.Groups))
	n := make([][]float64, len(red.Groups))
	w := make([]float64, len(red.Groups))
	for i, g := range red.Groups {
		alphas[i] = g.Alpha
		w[i] = g.Weight
		n[i] = make([]float64, C)
		for c, s := range g.Sizes {
			n[i][c] = float64(s)
		}
	}
	var err error
	red.GeneralizationTerm, err = theory.AlphaWeightTerm(w, alphas, n)
	if err != nil {
		return nil, fmt.Errorf("generalization term: %w", err)
	}
	return red, nil
}

// bagIDs formats the ids of the bags at the given positions.
func bagIDs(set *BagSet, pos []int) string {
	s := "["
	for k, p := range pos {
		if k > 0 {
			s += " "
		}
		s += fmt.Sprint(set.Bags[p].ID)
	}
	return s + "]"
}

// gammaOf returns Γ̂ with row c = proportions of the bag at position bags[c].
func gammaOf(set *BagSet, bags []int) *mat.Dense {
	C := set.NumClasses
	G := mat.NewDense(len(bags), C, nil)
	for c, p := range bags {
		G.SetRow(c, set.Bags[p].Proportions)
	}
	return G
}

// buildGroup computes Γ̂_i, α̂_i, σ̂_i and T̂_i for one group of C bags.
func buildGroup(set *BagSet, opts Options, sigmaHat []float64, bags []int) (*Group, error) {
	C := set.NumClasses
	g := &Group{Bags: append([]int(nil), bags...), Members: make([][]int, C), Sizes: make([]int, C)}
	g.Gamma = gammaOf(set, bags)
	ni := 0
	for c, p := range bags {
		g.Members[c] = []int{p}
		g.Sizes[c] = set.Bags[p].Size
		ni += set.Bags[p].Size
	}
	switch opts.Mode {
	case ModeIdeal:
		for c, s := range sigmaHat {
			if !(s > 0) {
				return nil, fmt.Errorf("%w (for all groups, Section 5.3): class %d is absent from every bag (σ̂(%d) = 0), but Section 5.1 assumes σ(c) ≠ 0", ErrAssumption, c, c)
			}
		}
		a, err := theory.IdealAlpha(g.Gamma, sigmaHat)
		if err != nil {
			if !errors.Is(err, ErrAssumption) {
				err = fmt.Errorf("%w: %v", ErrAssumption, err)
			}
			return nil, fmt.Errorf("for all groups (Section 5.3): %w", err)
		}
		g.Alpha = a
		T, err := theory.TransitionMatrix(g.Gamma, a, sigmaHat)
		if err != nil {
			return nil, err
		}
		g.T = T
		g.Sigma = append([]float64(nil), sigmaHat...)
		return g, nil
	case ModeUniform:
		g.Alpha = make([]float64, C)
		for c := range g.Alpha {
			if opts.Compat == CompatOriginal {
				g.Alpha[c] = 1 / float64(C)
			} else {
				g.Alpha[c] = float64(g.Sizes[c]) / float64(ni)
			}
		}
	case ModeApprox:
		// Algorithm 3 line 6 fits Γ̂ᵀα to σ̂. The authors' code fits Γ̂α
		// (make_groups.py@1d0cbc5:48 passes Γ̂ᵀ, which approx_noisy_prior
		// transposes back at line 32), as the paper's Section 5.4 text
		// writes it; CompatOriginal reproduces that.
		var A mat.Matrix = g.Gamma.T()
		if opts.Compat == CompatOriginal {
			A = g.Gamma
		}
		a, err := SimplexLS(A, sigmaHat)
		if err != nil {
			return nil, err
		}
		// Independent certificate of optimality (Γ̂ and σ̂ have entries in
		// [0, 1], so an absolute tolerance is meaningful).
		if err := CheckSimplexLSKKT(A, sigmaHat, a, KKTTol); err != nil {
			return nil, fmt.Errorf("approx: α̂ fails the optimality check: %w", err)
		}
		g.Alpha = a
	default:
		return nil, &InputError{fmt.Errorf("mode %q: not a per-group mode", opts.Mode)}
	}
	var err error
	g.Sigma, g.T, g.Diagnostics.AbsentClasses, err = transition(g.Gamma, g.Alpha, opts.Compat)
	if err != nil {
		return nil, err
	}
	return g, nil
}

// transition returns σ̂_i = Γ̂ᵀα̂ and T̂ with T̂(c1,c2) = Γ̂(c1,c2)α̂(c1)/σ̂_i(c2)
// (Algorithm 2/3, lines 7–9). Each column is computed as v/Σv with
// v(c1) = Γ̂(c1,c2)α̂(c1), whose sum is σ̂_i(c2) itself, so columns sum to 1 to
// rounding. A column with σ̂_i(c2) = 0 becomes e_{c2} (see Build), or an
// error with CompatOriginal.
func transition(G *mat.Dense, alpha []float64, compat Compat) (sigma []float64, T *mat.Dense, absent []int, err error) {
	C, _ := G.Dims()
	sigma = make([]float64, C)
	T = mat.NewDense(C, C, nil)
	for c2 := 0; c2 < C; c2++ {
		s := 0.0
		for c1 := 0; c1 < C; c1++ {
			s += G.At(c1, c2) * alpha[c1]
		}
		sigma[c2] = s
		if s == 0 {
			if compat == CompatOriginal {
				return nil, nil, nil, fmt.Errorf("class %d is absent from the group (σ̂_i(%d) = 0): T̂(·,%d) = 0/0; the original code divides by zero here (use the default --compat paper, which sets the column to e_%d)", c2, c2, c2, c2)
			}
			T.Set(c2, c2, 1)
			absent = append(absent, c2)
			continue
		}
		for c1 := 0; c1 < C; c1++ {
			T.Set(c1, c2, G.At(c1, c2)*alpha[c1]/s)
		}
	}
	return sigma, T, absent, nil
}

// MergeAssignment draws the mega-bag of every bag for ModeMerge as the
// authors' merge_bags does at 1d0cbc5 (make_groups.py:83-88): C distinct bags
// drawn uniformly at random seed mega-bags 0..C−1 in draw order, and every
// other bag joins mega-bag c with probability ∝ γ̂(c)^t, t =
// opts.MergeSharpness. (Their earlier seeding, commit 07236e3 of 2021-11-25,
// took the bag with the largest γ̂(c) for each c and could leave a mega-bag
// empty; 980868c of 2021-12-03 replaced it.)
func MergeAssignment(set *BagSet, opts Options, r *rand.Rand) ([]int, error) {
	C := set.NumClasses
	if len(set.Bags) < C {
		return nil, &InputError{fmt.Errorf("merge: %d bags, want at least C=%d (one per mega-bag)", len(set.Bags), C)}
	}
	t := opts.MergeSharpness
	if t == 0 {
		t = DefaultMergeSharpness
	}
	mega := make([]int, len(set.Bags))
	for k := range mega {
		mega[k] = -1
	}
	// A partial Fisher–Yates shuffle: the first C positions are C distinct
	// bags, uniformly at random and in random order.
	pos := make([]int, len(set.Bags))
	for k := range pos {
		pos[k] = k
	}
	for c := 0; c < C; c++ {
		j := c + r.IntN(len(pos)-c)
		pos[c], pos[j] = pos[j], pos[c]
		mega[pos[c]] = c
	}
	p := make([]float64, C)
	for k, b := range set.Bags {
		if mega[k] >= 0 {
			continue
		}
		s := 0.0
		for c, v := range b.Proportions {
			p[c] = math.Pow(v, t)
			s += p[c]
		}
		u := r.Float64() * s
		mega[k] = C - 1
		acc := 0.0
		for c := range p {
			acc += p[c]
			if u < acc {
				mega[k] = c
				break
			}
		}
		for p[mega[k]] == 0 { // guard against rounding at the top end
			mega[k]--
		}
	}
	return mega, nil
}

// buildMerge builds the single group of ModeMerge (llpfclib/make_groups.py@1d0cbc5:78-124,
// merge_bags) from the assignment mega of bags to mega-bags. Mega-bag
// proportions are size-weighted (make_groups.py:95), α(c) = |mega-bag c|/n;
// with CompatOriginal α = Γ^{-tr}σ̂ as the authors compute it
// (make_groups.py:105), equal to |mega-bag c|/n up to rounding.
func buildMerge(set *BagSet, opts Options, sigmaHat []float64, mega []int) (*Group, error) {
	C := set.NumClasses
	g := &Group{Bags: make([]int, C), Members: make([][]int, C), Sizes: make([]int, C)}
	for k := range set.Bags {
		c := mega[k]
		g.Members[c] = append(g.Members[c], k)
		g.Sizes[c] += set.Bags[k].Size
	}
	g.Gamma = mat.NewDense(C, C, nil)
	n := 0
	for c := 0; c < C; c++ {
		if len(g.Members[c]) == 0 {
			return nil, &InputError{fmt.Errorf("merge: mega-bag %d has no bag", c)}
		}
		g.Bags[c] = g.Members[c][0]
		row := make([]float64, C)
		tot := 0.0
		for _, k := range g.Members[c] {
			b := set.Bags[k]
			for j, v := range b.Proportions {
				row[j] += float64(b.Size) * v
				tot += float64(b.Size) * v
			}
		}
		for j := range row {
			row[j] /= tot
		}
		g.Gamma.SetRow(c, row)
		n += g.Sizes[c]
	}
	g.Alpha = make([]float64, C)
	if opts.Compat == CompatOriginal {
		var lu mat.LU
		lu.Factorize(g.Gamma.T())
		if cond := lu.Cond(); math.IsInf(cond, 1) || cond > theory.SingularCond {
			return nil, fmt.Errorf("merge (compat original): the mega-bags' proportions are linearly dependent (condition number %.3g): α = Γ^{-tr}σ̂ does not exist (the authors' np.linalg.inv, make_groups.py:105, raises LinAlgError or returns garbage)", cond)
		}
		var a mat.VecDense
		if err := lu.SolveVecTo(&a, false, mat.NewVecDense(C, append([]float64(nil), sigmaHat...))); err != nil {
			return nil, fmt.Errorf("merge (compat original): %w", err)
		}
		g.Alpha = mat.Col(nil, 0, &a)
		for c, v := range g.Alpha {
			if v < 0 {
				return nil, fmt.Errorf("merge (compat original): α = Γ^{-tr}σ̂ has entry %d = %.4g < 0, so T̂ has negative entries; the original code only logs a warning and trains on it", c, v)
			}
		}
	} else {
		for c := range g.Alpha {
			g.Alpha[c] = float64(g.Sizes[c]) / float64(n)
		}
	}
	var err error
	g.Sigma, g.T, g.Diagnostics.AbsentClasses, err = transition(g.Gamma, g.Alpha, opts.Compat)
	return g, err
}

// setWeights sets the group weights w ∈ Δ^N by opts.Weights.
func (red *Reduction) setWeights() error {
	N := len(red.Groups)
	C := red.NumClasses
	w := make([]float64, N)
	switch {
	case N == 1:
		w[0] = 1 // Δ^1 = {1}
	case red.Options.Weights == WeightsUniform:
		for i := range w {
			w[i] = 1 / float64(N)
		}
	case red.Options.Weights == WeightsHM:
		n := make([][]float64, N)
		for i, g := range red.Groups {
			n[i] = make([]float64, C)
			for c, s := range g.Sizes {
				n[i][c] = float64(s)
			}
		}
		hw, _, err := theory.HMWeights(n)
		if err != nil {
			return fmt.Errorf("hm weights: %w", err)
		}
		copy(w, hw)
	case red.Options.Weights == WeightsCHVol:
		tot := 0.0
		for i, g := range red.Groups {
			w[i] = HullVolume(g.Gamma)
			tot += w[i]
		}
		if !(tot > 0) {
			return fmt.Errorf("chvol weights: every group's convex hull has volume 0 (the proportions of each group are affinely dependent); use uniform or hm weights")
		}
		for i := range w {
			w[i] /= tot
		}
	}
	for i := range red.Groups {
		red.Groups[i].Weight = w[i]
	}
	return nil
}

// HullVolume returns the (C−1)-dimensional volume of the convex hull of the
// C rows of the C×C matrix G, points of the simplex Δ^C (weights `chvol`):
// √C·|det G|/(C−1)!. Derivation: conv{0, γ_1..γ_C} is a C-simplex of volume
// |det G|/C!; it is the cone over the base conv{γ_c} (lying in the hyperplane
// Σx = 1, at distance 1/√C from 0), so |det G|/C! = (1/C)(1/√C)·vol_{C−1}.
func HullVolume(G mat.Matrix) float64 {
	C, _ := G.Dims()
	v := math.Abs(mat.Det(G)) * math.Sqrt(float64(C))
	for k := 2; k < C; k++ {
		v /= float64(k)
	}
	return v
}

// fill computes the diagnostics of g (Weight and T already set).
func (d *Diagnostics) fill(g *Group, sigmaHat []float64) {
	d.RankGamma, d.CondGamma = rankCond(g.Gamma)
	d.RankT, d.CondT = rankCond(g.T)
	if v, err := theory.InvNorm1(g.T); err == nil {
		d.InvNorm1T = v
	} else {
		d.InvNorm1T = math.Inf(1)
	}
	d.CalibrationFactor = math.Sqrt2 * d.InvNorm1T
	if v, err := theory.Lambda0(g.T); err == nil {
		d.Lambda0 = v
	} else {
		d.Lambda0 = math.Inf(1)
	}
	if ok, err := theory.AssumptionCH(g.Gamma, sigmaHat); err == nil {
		d.AssumptionHolds = ok
	}
	C := len(sigmaHat)
	res := 0.0
	for j := 0; j < C; j++ {
		s := -sigmaHat[j]
		for c := 0; c < C; c++ {
			s += g.Gamma.At(c, j) * g.Alpha[c]
		}
		res += s * s
	}
	d.Residual = math.Sqrt(res)
	d.ZeroRows = nil
	for c, a := range g.Alpha {
		if a == 0 {
			d.ZeroRows = append(d.ZeroRows, c)
		}
	}
}

// rankCond returns the numerical rank (singular values above
// max(m,n)·ε·s_max, the convention of LAPACK and NumPy's matrix_rank) and the
// 2-norm condition number s_max/s_min (+Inf when s_min = 0).
func rankCond(M mat.Matrix) (int, float64) {
	var svd mat.SVD
	if !svd.Factorize(M, mat.SVDNone) {
		return 0, math.Inf(1)
	}
	sv := svd.Values(nil)
	r, c := M.Dims()
	tol := float64(max(r, c)) * 2.220446049250313e-16 * sv[0]
	rank := 0
	for _, s := range sv {
		if s > tol {
			rank++
		}
	}
	smin := sv[len(sv)-1]
	if smin == 0 {
		return rank, math.Inf(1)
	}
	return rank, sv[0] / smin
}

// InstanceWeight returns the weight of every instance with noisy label c in
// group i: w_i·α̂_i(c)/|b_{k_{i,c}}| (Algorithm 3, last line; the empirical
// risk `llpfc-ideal: empirical risk` with n_{i,c} = |b_{k_{i,c}}|). For
// ModeUniform α̂_i(c) = |b|/n_i, so this is w_i/n_i (Algorithm 2, last line).
//
// With CompatOriginal it is the authors' weight at 1d0cbc5
// (make_groups.py:175-186): w_i·(α̂_i(c)/|b_c|)/Σ_c' α̂_i(c')/|b_c'|, the ratio
// α̂_i(c)/(|b_c|/n_i) normalised to sum 1 over the group's C classes, and 1 for
// every instance of ModeMerge (make_groups.py:118). Their loss then divides
// by the weight sum of each minibatch, so only ratios matter. (Before commit
// edb0091 of 2021-11-25 the weight was α̂_i(c)·w_i, with no bag size.)
func (red *Reduction) InstanceWeight(i, c int) float64 {
	g := &red.Groups[i]
	if red.Options.Compat != CompatOriginal {
		return g.Weight * g.Alpha[c] / float64(g.Sizes[c])
	}
	if red.Options.Mode == ModeMerge {
		return 1
	}
	z := 0.0
	for k, a := range g.Alpha {
		z += a / float64(g.Sizes[k])
	}
	return g.Weight * g.Alpha[c] / float64(g.Sizes[c]) / z
}

// Instance is one training point of the LMNTM problem: the instance index
// into the underlying data set, its noisy label c (its bag's row in its
// group), the group whose T̂ corrects its loss, and its weight in the
// empirical risk, so that the risk of Algorithms 1–3 is
// Σ_instances Weight·ℓ_{T̂_Group}(f(x_Index), NoisyLabel).
type Instance struct {
	Index      int
	Bag        int // id of the instance's bag
	Group      int
	NoisyLabel int
	Weight     float64
}

// Instances returns the flat per-instance view the trainer uses, in group,
// row, member-bag and index order. Instances of leftover bags and of bags
// with weight 0 (α̂_i(c) = 0) are omitted. It is an error if a grouped bag
// has no instance indices or if an index occurs twice.
func (red *Reduction) Instances() ([]Instance, error) {
	var out []Instance
	seen := map[int]int{}
	for i, g := range red.Groups {
		for c, members := range g.Members {
			w := red.InstanceWeight(i, c)
			for _, k := range members {
				b := red.Set.Bags[k]
				if b.Indices == nil {
					return nil, &InputError{fmt.Errorf("bag %d: has no instance indices, want %d", b.ID, b.Size)}
				}
				for _, ix := range b.Indices {
					if prev, dup := seen[ix]; dup {
						return nil, &InputError{fmt.Errorf("bag %d: instance index %d is also in bag %d", b.ID, ix, prev)}
					}
					seen[ix] = b.ID
					if w == 0 {
						continue
					}
					out = append(out, Instance{Index: ix, Bag: b.ID, Group: i, NoisyLabel: c, Weight: w})
				}
			}
		}
	}
	return out, nil
}

// InstanceArrays returns the per-instance view as arrays indexed by instance
// index 0..n−1: noisy label, group and weight (Instances); instances in no
// group (leftover bags, weight-0 rows, or indices no bag lists) have
// label −1, group −1 and weight 0. It is an error if a grouped index is ≥ n.
func (red *Reduction) InstanceArrays(n int) (noisy, group []int, weight []float64, err error) {
	inst, err := red.Instances()
	if err != nil {
		return nil, nil, nil, err
	}
	noisy, group, weight = make([]int, n), make([]int, n), make([]float64, n)
	for i := range noisy {
		noisy[i], group[i] = -1, -1
	}
	for _, in := range inst {
		if in.Index >= n {
			return nil, nil, nil, &InputError{fmt.Errorf("bag %d: instance index %d, want < %d (the size of the data set)", in.Bag, in.Index, n)}
		}
		noisy[in.Index], group[in.Index], weight[in.Index] = in.NoisyLabel, in.Group, in.Weight
	}
	return noisy, group, weight, nil
}
