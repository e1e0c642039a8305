package claims

// Registration of the claims of Section 4 (LMNTM risk, composite loss,
// weights) and Sections 5.2–5.3 with Appendices D–E (the probabilistic model
// of LLP). The checkers are in lmntm_*.go; each takes the implementation
// under test as a parameter, and its negative control passes a deliberately
// wrong one.

import (
	"github.com/llpfc/llpfc/theory"
	"github.com/llpfc/llpfc/theory/verify"
)

func init() {
	register(
		tested(verify.Claim{
			Label:      "llp.cali",
			Kind:       verify.Theorem,
			RatioFloor: 0.7,
			Section:    "§4",
			Statement: "θ(R_{01,P}(f) − R*_{01,P}) ≤ R̃(f) − R̃* for R̃ = Σ_i w_i R_{ℓ_{T_i},P_{T_i}}; " +
				"for the log loss θ(ε) = (ε²/2)Σ_i w_i/‖T_i⁻¹‖₁² (θ = Σ_i w_i θ̲_{T_i}, from the proof and Prop. theorem: cali_lowerb)",
			NegativeName: "‖T_i‖₁ (= 1) in place of ‖T_i⁻¹‖₁ in θ",
		}, lmCheckCali, "llp.cali", refLMTheta, lmThetaForwardNorm),
		tested(verify.Claim{
			Label:      "lip.upper.bd.cel",
			Kind:       verify.Theorem,
			RatioFloor: 0.99,
			PartFloors: map[string]float64{"lip.upper.bd.cel/direct": 0.8, "lip.upper.bd.cel/finite-differences": 0},
			Section:    "§4",
			Statement: "‖∇_s λ_{ℓ_T}(s,c)‖₂ ≤ √2 for the log loss with softmax link and column-stochastic T, " +
				"∇ = p − t_c⊙p/⟨t_c,p⟩ (checked against central differences) and |λ(s)−λ(u)| ≤ √2‖s−u‖₂",
			NegativeName: "gradient with its sign flipped",
		}, lmCheckLip, "lip.upper.bd.cel", theory.CompositeFCGrad, lmFlippedGrad),
		tested(verify.Claim{
			Label:        "lambda0.formula",
			Kind:         verify.Definitional,
			Section:      "§4.3",
			Statement:    "|λ_{ℓ_T}|₀ = max_c |λ_{ℓ_T}(0,c)| = max_c −log((1/C)Σ_j t_{c,j})",
			NegativeName: "1/C dropped: max_c −log Σ_j t_{c,j}",
		}, lmCheckLambda0, "lambda0.formula", theory.Lambda0, lmLambda0NoMean),
		tested(verify.Claim{
			Label:   "sec:cfm prob model",
			Kind:    verify.IdentityKind,
			Section: "App. D",
			Statement: "with T(i,j) = γ_i(j)α(i)/σ(j) and σ = Γᵀα: T is column-stochastic, α(i) = P̄_T(Ỹ=i), " +
				"P̄_T(·|Ỹ=i) = P_{γ_i}, γ_i(c) = P̄_T(Y=c|Ỹ=i)",
			NegativeName: "α(i) factor dropped from T",
		}, lmCheckCfm, "sec:cfm prob model", theory.TransitionMatrix, lmTransitionNoAlpha),
		tested(verify.Claim{
			Label:   "grouping assumption: ch",
			Kind:    verify.IdentityKind,
			Section: "§5.2",
			Statement: "∃ unique α ∈ open simplex with Γᵀα = σ ⇔ {γ_i} linearly independent and σ in the interior of " +
				"their convex hull (decided by an LP, without inverting Γ)",
			NegativeName: "Γ in place of Γᵀ (solving Γα = σ)",
		}, lmCheckCH, "grouping assumption: ch", theory.AssumptionCH, lmDecideTransposed),
		tested(verify.Claim{
			Label:   "grouping assumption all groups",
			Kind:    verify.IdentityKind,
			Section: "§5.3",
			Statement: "the assumption holds for every group ⇔ every Γ_i is invertible and T_i (Algorithm 1 line 7) is " +
				"column-stochastic with α_i in the open simplex",
			NegativeName: "every Γ_i in place of Γ_iᵀ",
		}, lmCheckAll, "grouping assumption all groups", theory.AssumptionAllGroups, lmAllTransposed),
		tested(verify.Claim{
			Label:      "hm.weights.optimal",
			Kind:       verify.Theorem,
			RatioFloor: 0.99,
			Section:    "§4.2",
			Statement: "w_i = HM_i/Σ_m HM_m minimizes √(Σ_iΣ_c w_i²/n_{i,c}) over Δ^N, with minimum √(C/Σ_i HM_i) " +
				"(random and perturbed competitors, KKT)",
			NegativeName: "uniform weights 1/N in place of the HM weights",
		}, lmCheckHM, "hm.weights.optimal", theory.HMWeights, lmUniformWeights),
		tested(verify.Claim{
			Label:   "llpfc-ideal: empirical risk",
			Kind:    verify.IdentityKind,
			Section: "§4.3",
			Statement: "R̂_{w,S}(f) = Σ_i w_i Σ_c α_i(c)/n_{i,c} Σ_j ℓ_{T_i}(f(X_{i,c,j}),c) is unbiased: E_S R̂ = R̃(f) " +
				"(exact enumeration of S, and Monte Carlo)",
			NegativeName: "α_i(c) replaced by 1/C",
		}, lmCheckEmp, "llpfc-ideal: empirical risk", theory.EmpiricalLMNTMRisk, lmEmpUniformAlpha),
	)
}
