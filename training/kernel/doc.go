// Package kernel implements the kernel methods of the paper's binary
// experiment (Appendix "Experiments in Binary Setting", Table `tab:binary exp`
// of Zhang, Wang, Scott, NeurIPS 2022):
//
//   - LLPFC-uniform and LLPFC-approx with an RBF kernel model
//     f(x) = Σ_j β_j k(x_j, x) + b, the forward-corrected logistic loss and
//     L-BFGS (LLPFC; groups, T̂ and weights come from package estimators);
//   - LMMCM (Scott & Zhang, AISTATS 2020): the backward-corrected logistic
//     loss on greedily paired bags, as in the authors' code;
//   - InvCal (Rüping, ICML 2010): ε-insensitive regression of the inverse
//     sigmoid of each bag's proportion on the bag's kernel mean;
//   - alter-∝SVM (Yu et al., ICML 2013): the alternating solver with
//     annealing of the loss weight;
//   - AUC with ties, bag-level cross-validation that sees no instance label,
//     standardization and the kernel width 1/(d·Var(X)).
//
// # Model and approximation
//
// Every smooth method minimizes Σ_i ℓ_i(t_i) + λ θᵀRθ over (θ, b) with
// t = Aθ + b (b omitted for LMMCM, whose authors use none). Exact: A = R = K,
// the Gram matrix of the training points (θ = β). Nyström: m landmarks drawn
// uniformly without replacement from the training points, A = K_nm, R = K_mm,
// i.e. f is restricted to span{k(z_j, ·)} and θᵀK_mmθ is its RKHS norm. With
// all points as landmarks the two coincide (tested); the approximation error
// ‖K − K_nm K_mm⁺ K_mn‖_F/‖K‖_F is measured by NystromError.
//
// # Hand-written pieces
//
// gonum provides L-BFGS (optimize) and the linear algebra (mat). There is no
// pure-Go SVM/SVR dual solver, so SolveQP is a hand-written SMO (the
// second-order working-set selection of Fan, Chen, Lin 2005, as in libsvm,
// which the pSVM code calls); it is checked against its KKT conditions and
// closed forms.
package kernel
