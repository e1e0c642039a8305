package main

// mutation is one realistic bug: the text Old, which must occur exactly once
// in File, is replaced by New.
type mutation struct {
	ID, File, Bug string
	Old, New      string
}

// mutations is the reviewed list. Each entry is a bug a person could write
// while implementing the paper (a dropped or misprinted factor, a wrong norm,
// a transposed matrix, an off-by-one in an enumeration), never a change in a
// checker. PAPER_MAP.md ("Mutation score") lists the claims that catch each.
var mutations = []mutation{
	// App. B: norms and calibration functions.
	{ID: "invnorm1-inf", File: "theory/norms.go", Bug: "‖T⁻¹‖∞ in place of ‖T⁻¹‖₁",
		Old: "return mat.Norm(&inv, 1), nil", New: "return mat.Norm(&inv, math.Inf(1)), nil"},
	{ID: "invnorm1-of-T", File: "theory/norms.go", Bug: "‖T‖₁ in place of ‖T⁻¹‖₁",
		Old: "return mat.Norm(&inv, 1), nil", New: "return mat.Norm(T, 1), nil"},
	{ID: "invnorm2-smax", File: "theory/calibration.go", Bug: "‖T⁻¹‖₂ as 1/σ_max instead of 1/σ_min",
		Old: "return 1 / smin, nil", New: "return 1 / smax, nil"},
	{ID: "cali-inv-sqrt2-to-2", File: "theory/calibration.go", Bug: "θ_T⁻¹(r) = 2‖T⁻¹‖₁√r (√2 → 2, a loosened bound)",
		Old: "	n, err := fcInvNorm1(T)\n	if err != nil {\n		return 0, err\n	}\n	return math.Sqrt2 * n * math.Sqrt(r), nil",
		New: "	n, err := fcInvNorm1(T)\n	if err != nil {\n		return 0, err\n	}\n	return 2 * n * math.Sqrt(r), nil"},
	{ID: "cali-inv-drop-sqrt2", File: "theory/calibration.go", Bug: "θ_T⁻¹(r) = ‖T⁻¹‖₁√r (√2 dropped)",
		Old: "	n, err := fcInvNorm1(T)\n	if err != nil {\n		return 0, err\n	}\n	return math.Sqrt2 * n * math.Sqrt(r), nil",
		New: "	n, err := fcInvNorm1(T)\n	if err != nil {\n		return 0, err\n	}\n	return n * math.Sqrt(r), nil"},
	{ID: "theta-drop-2", File: "theory/calibration.go", Bug: "θ_T(ε) = ε²/‖T⁻¹‖₁² (factor 2 dropped)",
		Old: "	n, err := fcInvNorm1(T)\n	if err != nil {\n		return 0, err\n	}\n	return eps * eps / (2 * n * n), nil",
		New: "	n, err := fcInvNorm1(T)\n	if err != nil {\n		return 0, err\n	}\n	return eps * eps / (n * n), nil"},
	{ID: "sq-cali-inv-sqrt2-to-2", File: "theory/calibration.go", Bug: "square-loss θ⁻¹(r) = 2‖T⁻¹‖₂√r (loosened)",
		Old: "	n, err := fcInvNorm2(T)\n	if err != nil {\n		return 0, err\n	}\n	return math.Sqrt2 * n * math.Sqrt(r), nil",
		New: "	n, err := fcInvNorm2(T)\n	if err != nil {\n		return 0, err\n	}\n	return 2 * n * math.Sqrt(r), nil"},
	{ID: "uniform-invnorm-1/C", File: "theory/calibration.go", Bug: "‖T⁻¹‖₁ = (1−α)⁻¹(1 + (1−1/C)α) for uniform noise",
		Old: "return (1 + (1-2/float64(C))*alpha) / (1 - alpha), nil", New: "return (1 + (1-1/float64(C))*alpha) / (1 - alpha), nil"},
	{ID: "noisy-posterior-T-transposed", File: "theory/losses.go", Bug: "T·q computed as Tᵀ·q",
		Old: "s += T.At(i, j) * q[j]", New: "s += T.At(j, i) * q[j]"},
	{ID: "argmax-ties-largest", File: "theory/losses.go", Bug: "ties in argmax broken to the largest index",
		Old: "if best < 0 || v > q[best] {", New: "if best < 0 || v >= q[best] {"},
	{ID: "square-loss-no-one", File: "theory/losses.go", Bug: "square-loss Bayes risk ‖η‖² in place of 1 − ‖η‖²",
		Old: "	return 1 - s\n}", New: "	return s\n}"},
	{ID: "kl-no-mismatch", File: "theory/divergence.go", Bug: "KL drops the term q_i of a class with p_i = 0 (0·log 0 handled as 0 in the rearranged sum)",
		Old: "			s += qi\n", New: "			s += 0\n"},
	{ID: "lmntm-noisy-transposed", File: "theory/lmntm.go", Bug: "P_T built with Tᵀ: P(Ỹ=i|x) = Σ_y t_{y,i}P(y|x)",
		Old: "row[x] += m.Joint(x, y) * T.At(i, y)", New: "row[x] += m.Joint(x, y) * T.At(y, i)"},
	{ID: "lmntm-theta-no-square", File: "theory/lmntm.go", Bug: "θ coefficient Σ_i w_i/‖T_i⁻¹‖₁ (square dropped)",
		Old: "k += w[i] / (v * v)", New: "k += w[i] / v"},
	{ID: "ideal-alpha-gamma-not-T", File: "theory/lmntm.go", Bug: "α solved from Γα = σ instead of Γᵀα = σ",
		Old: "lu.Factorize(gamma.T())", New: "lu.Factorize(gamma)"},
	// §4.3, App. C: generalization bounds.
	{ID: "conc-log-1/delta", File: "theory/bounds.go", Bug: "McDiarmid term with log(1/δ) in place of log(2/δ)",
		Old: "return math.Sqrt(2 * math.Log(2/delta) * v), nil", New: "return math.Sqrt(2 * math.Log(1/delta) * v), nil"},
	{ID: "conc-alpha-not-squared", File: "theory/bounds.go", Bug: "McDiarmid term with α_i(c) in place of α_i(c)²",
		Old: "v += w * w * s.Alpha[i][c] * s.Alpha[i][c] / float64(n) * b * b", New: "v += w * w * s.Alpha[i][c] / float64(n) * b * b"},
	{ID: "radlips-2-to-1", File: "theory/bounds.go", Bug: "Lemma rad.lips with factor 1 on the Rademacher term (2 → 1)",
		Old: "return t + 2*radLoss, nil", New: "return t + radLoss, nil"},
	{ID: "lemmagen-printed-2", File: "theory/bounds.go", Bug: "Lemma gen with the paper's printed 2 in place of 2√2",
		Old: "return t + 2*math.Sqrt2*radVec, nil", New: "return t + 2*radVec, nil"},
	{ID: "kernel-drop-C", File: "theory/bounds.go", Bug: "kernel Rademacher bound without the factor C",
		Old: "return float64(C) * R * K * math.Sqrt(radDot(a, a)), nil", New: "return R * K * math.Sqrt(radDot(a, a)), nil"},
	{ID: "mlp-drop-C", File: "theory/bounds.go", Bug: "MLP Rademacher bound without the factor C",
		Old: "return float64(C) * alpha * math.Pow(2, float64(m-1))", New: "return alpha * math.Pow(2, float64(m-1))"},
	{ID: "mlp-2^m", File: "theory/bounds.go", Bug: "MLP Rademacher bound with 2^m in place of 2^{m−1}",
		Old: "return float64(C) * alpha * math.Pow(2, float64(m-1))", New: "return float64(C) * alpha * math.Pow(2, float64(m))"},
	{ID: "B1-printed-RK", File: "theory/bounds.go", Bug: "B₁ = RK as printed (the derivation gives 2√2RK)",
		Old: "func B1(R, K float64) float64 { return 2 * math.Sqrt2 * R * K }", New: "func B1(R, K float64) float64 { return R * K }"},
	{ID: "B2-2-not-2sqrt2", File: "theory/bounds.go", Bug: "B₂ with 2 in place of 2√2",
		Old: "return 2 * math.Sqrt2 * alpha * math.Pow(2, float64(m-1)) * math.Pow(beta, float64(m))", New: "return 2 * alpha * math.Pow(2, float64(m-1)) * math.Pow(beta, float64(m))"},
	{ID: "geb-drop-C", File: "theory/bounds.go", Bug: "Theorem geb without the factor C on the Rademacher term",
		Old: "	C := float64(s.NumClasses())\n	return (maxB*math.Sqrt(2*math.Log(2/delta)) + C*B*maxL)", New: "	return (maxB*math.Sqrt(2*math.Log(2/delta)) + B*maxL)"},
	{ID: "geb-log-1/delta", File: "theory/bounds.go", Bug: "Theorem geb with log(1/δ) in place of log(2/δ)",
		Old: "maxB*math.Sqrt(2*math.Log(2/delta)) + C", New: "maxB*math.Sqrt(2*math.Log(1/delta)) + C"},
	{ID: "geb-w-not-squared", File: "theory/bounds.go", Bug: "Theorem geb with Σ w_i/n_{i,c} in place of Σ w_i²/n_{i,c}",
		Old: "v += w * w / float64(n)", New: "v += w / float64(n)"},
	{ID: "rad-exact-skip-sign", File: "theory/rademacher.go", Bug: "WeightedRadExact enumerates 2^m − 1 sign vectors (mask from 1)",
		Old: "for mask := 0; mask < n; mask++ {", New: "for mask := 1; mask < n; mask++ {"},
	{ID: "lambda0-drop-1/C", File: "theory/norms.go", Bug: "|λ|₀ = max_c −log Σ_j t_{c,j} (1/C dropped)",
		Old: "v := math.Abs(-math.Log(s / float64(c)))", New: "v := math.Abs(-math.Log(s))"},
	{ID: "loglosslip-2", File: "theory/bounds.go", Bug: "Lipschitz constant of the composite log loss 2 in place of √2 (loosened)",
		Old: "var LogLossLip = math.Sqrt2", New: "var LogLossLip = 2.0"},
	// §4.2: weights.
	{ID: "hm-arith-mean", File: "theory/weights.go", Bug: "group weights by the arithmetic mean of n_{i,c} in place of the harmonic mean",
		Old: "		s += 1 / v\n	}\n	return float64(len(n)) / s", New: "		s += v\n	}\n	return s / float64(len(n))"},
	{ID: "weightterm-w-not-squared", File: "theory/weights.go", Bug: "√(Σ w_i/n_{i,c}) in place of √(Σ w_i²/n_{i,c})",
		Old: "s += w[i] * w[i] / v", New: "s += w[i] / v"},
	// §5: the transition matrix of a group.
	{ID: "transition-drop-alpha", File: "theory/transition.go", Bug: "T(i,j) = γ_i(j)/σ(j) (α(i) dropped)",
		Old: "T.Set(i, j, gamma.At(i, j)*alpha[i]/sigma[j])", New: "T.Set(i, j, gamma.At(i, j)/sigma[j])"},
	{ID: "sigma-gamma-not-T", File: "theory/transition.go", Bug: "σ = Γα in place of Γᵀα",
		Old: "s.MulVec(gamma.T(), mat.NewVecDense", New: "s.MulVec(gamma, mat.NewVecDense"},
}
