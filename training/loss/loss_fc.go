package loss

import (
	"fmt"

	"github.com/llpfc/llpfc/training/nn"
	"gorgonia.org/gorgonia"
)

// FCLoss adds the weighted forward-correction (FC) loss of Algorithms
// `algo:LLPFC-uniform` and `algo:LLPFC-approx` (line "Train with …") to the
// graph of logits:
//
//	loss = −Σ_i w_i · log( Σ_j R_ij · softmax(z_i)_j + FCFloor ),
//
// where z (batch×C) are the logits, R (batch×C) holds in row i the row ỹ_i
// of T̂_{g(i)} for instance i with noisy label ỹ_i in group g(i) (only that
// row of (T̂ f(x))_ỹ = Σ_j T̂(ỹ, j) f_j(x) enters ℓ_T̂(f(x), ỹ) = −log
// (T̂ f(x))_ỹ, Section `llnfc`), and w (batch) holds the per-instance weight
// (w_g/n_g for LLPFC-uniform, w_g·α̂_g(c)/|b| for LLPFC-approx; zero for
// padding rows). The caller chooses any normalisation (for example the
// weights of a minibatch divided by the batch size).
//
// The op is fused: softmax, the product with R and the logarithm are
// computed together in a numerically stable form (z shifted by its row
// maximum, so exp never overflows) and the gradient with respect to z is the
// closed form ∂loss/∂z_ij = −w_i · p_ij (R_ij − q_i)/(q_i + ε) with
// q_i = Σ_k R_ik p_ik. R and w are treated as constants.
func FCLoss(z, r, w *gorgonia.Node) (*gorgonia.Node, error) {
	if err := checkFCInputs(z, r, w); err != nil {
		return nil, err
	}
	return gorgonia.ApplyOp(nn.FCLossOp{}, z, r, w)
}

// checkFCInputs checks the shapes and element types of FCLoss's inputs.
func checkFCInputs(z, r, w *gorgonia.Node) error {
	zs, rs, ws := z.Shape(), r.Shape(), w.Shape()
	if zs.Dims() != 2 || !rs.Eq(zs) {
		return fmt.Errorf("FCLoss: logits shape %v and rows-of-T̂ shape %v, want equal batch×C", zs, rs)
	}
	if ws.TotalSize() != zs[0] {
		return fmt.Errorf("FCLoss: weights shape %v, want a vector of length %d (the batch)", ws, zs[0])
	}
	if z.Dtype() != r.Dtype() || z.Dtype() != w.Dtype() {
		return fmt.Errorf("FCLoss: element types %v, %v, %v differ", z.Dtype(), r.Dtype(), w.Dtype())
	}
	return nil
}

// FCLossClamped is FCLoss as the authors' loss_f computes it (Compat
// original): −Σ_i w_i·log(max(q_i, AuthorsClamp)) with q_i = Σ_j R_ij
// softmax(z_i)_j, and a zero gradient for the rows with q_i < AuthorsClamp
// (torch.clamp passes no gradient outside its range). FCLoss instead adds
// FCFloor = 1e-12 inside the logarithm and keeps a gradient everywhere.
func FCLossClamped(z, r, w *gorgonia.Node) (*gorgonia.Node, error) {
	if err := checkFCInputs(z, r, w); err != nil {
		return nil, err
	}
	return gorgonia.ApplyOp(nn.FCLossOp{Clamp: true}, z, r, w)
}

// FCFloor is the floor ε inside the logarithm of FCLoss (nn.FCFloor).
const FCFloor = nn.FCFloor

// AuthorsClamp is the lower clamp of FCLossClamped (nn.AuthorsClamp).
const AuthorsClamp = nn.AuthorsClamp
