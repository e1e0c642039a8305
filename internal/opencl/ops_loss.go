package opencl

// FCLoss enqueues the forward-correction loss of training/nn/fcloss.go
// (fcLossOp) into out[0]: z (logits) and r (the rows of T̂) are n×c, w holds
// n weights, and
//
//	loss = −Σ_i w_i·log(Σ_j r_ij·softmax(z_i)_j + 1e-12)    (FCFloor),
//	loss = −Σ_i w_i·log(max(Σ_j r_ij·softmax(z_i)_j, 1e-8)) (clamp: the authors' loss_f),
//
// skipping rows with w_i = 0 (padding), accumulated in acc_t.
func (l *Lib) FCLoss(z, r, w, out *Buffer, n, c int, clamp bool) error {
	if err := positive("FC loss", ni("n", n), ni("c", c)); err != nil {
		return err
	}
	if err := need("FC loss", n*c, nb("z", z), nb("r", r)); err != nil {
		return err
	}
	if err := need("FC loss", n, nb("w", w)); err != nil {
		return err
	}
	if err := need("FC loss", 1, nb("out", out)); err != nil {
		return err
	}
	return l.groups("fc_loss", 1, z, r, w, out, n, c, b2i(clamp))
}

// FCLossGrad enqueues fcLossGradOp: dz = g[0]·∂loss/∂z (g the upstream
// scalar gradient, on the device), row i
// −g·w_i/(q_i + 1e-12)·p_ij·(r_ij − q_i) with p = softmax(z_i) and
// q_i = ⟨r_i, p⟩; with clamp, rows with q_i < 1e-8 are 0 and the others
// use q_i without the floor. Rows with w_i = 0 are 0.
func (l *Lib) FCLossGrad(z, r, w, g, dz *Buffer, n, c int, clamp bool) error {
	if err := positive("FC loss gradient", ni("n", n), ni("c", c)); err != nil {
		return err
	}
	if err := need("FC loss gradient", n*c, nb("z", z), nb("r", r), nb("dz", dz)); err != nil {
		return err
	}
	if err := need("FC loss gradient", n, nb("w", w)); err != nil {
		return err
	}
	if err := need("FC loss gradient", 1, nb("g", g)); err != nil {
		return err
	}
	return l.elem("fc_loss_grad", n, z, r, w, g, dz, n, c, b2i(clamp))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
