package loss

import (
	"fmt"

	"github.com/llpfc/llpfc/training/nn"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// softplus returns log(1 + eˣ) element-wise in the overflow-free form
// max(x, 0) + log1p(e^(−|x|)).
func softplus(x *gorgonia.Node) (*gorgonia.Node, error) {
	pos, err := gorgonia.Rectify(x)
	if err != nil {
		return nil, err
	}
	a, err := gorgonia.Abs(x)
	if err != nil {
		return nil, err
	}
	na, err := gorgonia.Neg(a)
	if err != nil {
		return nil, err
	}
	e, err := gorgonia.Exp(na)
	if err != nil {
		return nil, err
	}
	l, err := gorgonia.Log1p(e)
	if err != nil {
		return nil, err
	}
	return gorgonia.Add(pos, l)
}

// logSumExpRows returns L_j = log Σ_c exp(z_jc) for the n×C logits z as an
// n×1 matrix, as m_j + log Σ_c exp(z_jc − m_j) with m_j the row maximum.
//
// gorgonia note: SoftMax and LogSoftMax cannot be used in a graph that is
// differentiated twice — after the first Grad the graph holds softmax
// derivative nodes whose DiffWRT panics ("softmax operator only supports one
// input") in any later Grad (v0.9.18). VAT needs two Grad calls, so the
// losses here build log-softmax from elementary ops.
func logSumExpRows(z *gorgonia.Node) (*gorgonia.Node, error) {
	s := z.Shape()
	if s.Dims() != 2 {
		return nil, fmt.Errorf("log-sum-exp: logits shape %v, want n×C", s)
	}
	n, C := s[0], s[1]
	m, err := gorgonia.Max(z, 1)
	if err != nil {
		return nil, err
	}
	if m, err = gorgonia.Reshape(m, tensor.Shape{n, 1}); err != nil {
		return nil, err
	}
	zc, err := gorgonia.BroadcastSub(z, m, nil, []byte{1})
	if err != nil {
		return nil, err
	}
	e, err := gorgonia.Exp(zc)
	if err != nil {
		return nil, err
	}
	ones := nn.ConstMatrixNode(z.Graph(), z.Dtype(), "class-sum", C, 1, nn.Fill(C, 1))
	sum, err := gorgonia.Mul(e, ones) // n×1
	if err != nil {
		return nil, err
	}
	ls, err := gorgonia.Log(sum)
	if err != nil {
		return nil, err
	}
	return gorgonia.Add(ls, m)
}

// logSoftmaxRows returns log softmax(z) row by row (n×C) without gorgonia's
// softmax op (see logSumExpRows).
func logSoftmaxRows(z *gorgonia.Node) (*gorgonia.Node, error) {
	L, err := logSumExpRows(z)
	if err != nil {
		return nil, err
	}
	return gorgonia.BroadcastSub(z, L, nil, []byte{1})
}

// LLPGANDiscriminatorLoss adds the minibatch discriminator loss of
// Appendix `suppsec: exp`, "LLPGAN" (equations (1)–(3) there):
//
//	L_D = −Σ_k Σ_j (1/m_k) log Σ_{c≤C} f_c(X^k_j)
//	      − (1/Σ_k m_k) Σ_k Σ_j log f_{C+1}(g(Z^k_j))
//	      − 1/(B·C) Σ_k Σ_c Σ_j (γ̂_k(c)/m_k) log f_c(X^k_j),
//
// where f is the (C+1)-way softmax of the discriminator's C logits with a
// (C+1)-th logit fixed to 0 (as the authors' and LLP-GAN's code do). With
// L = log Σ_c e^{z_c}: log Σ_{c≤C} f_c = −softplus(−L), log f_{C+1} =
// −softplus(L), log f_c = z_c − softplus(L). zReal (n×C) are the logits of
// the real instances of the B bags in order, zFake (n_f×C) those of the
// generated images (n_f = Σ_k m_k in the paper), avg the B×n matrix with
// avg[k, j] = 1/m_k for instance j of bag k, props the B×C proportions γ̂.
func LLPGANDiscriminatorLoss(zReal, zFake, avg, props *gorgonia.Node) (*gorgonia.Node, error) {
	rs, fs, as, ps := zReal.Shape(), zFake.Shape(), avg.Shape(), props.Shape()
	if rs.Dims() != 2 || fs.Dims() != 2 || as.Dims() != 2 || ps.Dims() != 2 ||
		fs[1] != rs[1] || as[1] != rs[0] || as[0] != ps[0] || ps[1] != rs[1] {
		return nil, fmt.Errorf("LLPGAN discriminator loss: shapes real logits %v, fake logits %v, averaging %v, proportions %v; want n×C, n_f×C, B×n, B×C", rs, fs, as, ps)
	}
	dt := zReal.Dtype()
	B, C := ps[0], ps[1]
	g := zReal.Graph()

	// Term 1: Σ_k Σ_j (1/m_k) softplus(−L_j) = sum(avg · softplus(−L)).
	L, err := logSumExpRows(zReal)
	if err != nil {
		return nil, err
	}
	nL, err := gorgonia.Neg(L)
	if err != nil {
		return nil, err
	}
	spNeg, err := softplus(nL)
	if err != nil {
		return nil, err
	}
	t1m, err := gorgonia.Mul(avg, spNeg) // B×1
	if err != nil {
		return nil, err
	}
	t1, err := gorgonia.Sum(t1m)
	if err != nil {
		return nil, err
	}

	// Term 2: mean over fakes of softplus(L_fake).
	Lf, err := logSumExpRows(zFake)
	if err != nil {
		return nil, err
	}
	spf, err := softplus(Lf)
	if err != nil {
		return nil, err
	}
	nf := fs[0]
	meanF := nn.ConstMatrixNode(g, dt, "fake-average", 1, nf, nn.Fill(nf, 1/float64(nf)))
	t2m, err := gorgonia.Mul(meanF, spf) // 1×1
	if err != nil {
		return nil, err
	}
	t2, err := gorgonia.Sum(t2m)
	if err != nil {
		return nil, err
	}

	// Term 3: −1/(BC) Σ_k Σ_c γ̂_k(c) Σ_j avg[k,j]·(z_jc − softplus(L_j)).
	sp, err := softplus(L) // n×1
	if err != nil {
		return nil, err
	}
	logf, err := gorgonia.BroadcastSub(zReal, sp, nil, []byte{1}) // n×C
	if err != nil {
		return nil, err
	}
	bagLog, err := gorgonia.Mul(avg, logf) // B×C
	if err != nil {
		return nil, err
	}
	weighted, err := gorgonia.HadamardProd(bagLog, props)
	if err != nil {
		return nil, err
	}
	t3s, err := gorgonia.Sum(weighted)
	if err != nil {
		return nil, err
	}
	t3, err := gorgonia.Mul(t3s, nn.ScalarConst(dt, -1/float64(B*C)))
	if err != nil {
		return nil, err
	}
	sum, err := gorgonia.Add(t1, t2)
	if err != nil {
		return nil, err
	}
	return gorgonia.Add(sum, t3)
}

// LLPGANGeneratorLoss adds the minibatch generator loss of Appendix
// `suppsec: exp`, "LLPGAN" (feature matching):
//
//	L_G = (1/n) Σ_j ‖f_conv(X_j) − f_conv(g(Z_j))‖²₂,
//
// for real features featReal and generated features featFake, both n×F
// (row j of each is paired, as in the appendix and the authors' code).
// The authors' code uses torch's mse_loss, which also divides by F.
func LLPGANGeneratorLoss(featReal, featFake *gorgonia.Node) (*gorgonia.Node, error) {
	rs, fs := featReal.Shape(), featFake.Shape()
	if rs.Dims() != 2 || !rs.Eq(fs) {
		return nil, fmt.Errorf("LLPGAN generator loss: feature shapes %v and %v, want equal n×F", rs, fs)
	}
	diff, err := gorgonia.Sub(featReal, featFake)
	if err != nil {
		return nil, err
	}
	sq, err := gorgonia.Square(diff)
	if err != nil {
		return nil, err
	}
	s, err := gorgonia.Sum(sq)
	if err != nil {
		return nil, err
	}
	return gorgonia.Mul(s, nn.ScalarConst(featReal.Dtype(), 1/float64(rs[0])))
}
