package opencl

import (
	"errors"
	"fmt"
)

// BNGeom is the shape of a batch-norm input: N rows (instances) of C
// channels of HW values each (HW = H·W for images, 1 for N×C inputs).
type BNGeom struct{ N, C, HW int }

func (g BNGeom) check(op string, rows int) error {
	if err := positive(op, ni("N", g.N), ni("C", g.C), ni("HW", g.HW)); err != nil {
		return err
	}
	if rows < 1 || rows > g.N {
		return fmt.Errorf("opencl: %s: %d statistics rows of %d, want 1 … N", op, rows, g.N)
	}
	return nil
}

// BNState is one batch-norm layer's per-channel state on the device (C
// values each): what a training-mode forward pass leaves for the backward
// pass, as bnOp keeps it on the CPU.
type BNState struct {
	C         int
	Mean, Var *Buffer // the statistics the forward pass normalised with (biased variance)
	InvStd    *Buffer // 1/√(Var + ε)
	A, B      *Buffer // the affine map the output used: y = A·x + B (the ReLU mask is recomputed from it)
	SumG      *Buffer // Σg of the last backward pass (g = ∂L/∂y masked by the ReLU): ∂L/∂β
	SumGX     *Buffer // Σg·x̂ of the last backward pass: ∂L/∂γ
}

// NewBNState allocates the state of a layer of c channels.
func (l *Lib) NewBNState(c int) (*BNState, error) {
	if c < 1 {
		return nil, fmt.Errorf("opencl: batch-norm state of %d channels", c)
	}
	s := &BNState{C: c}
	for _, p := range []**Buffer{&s.Mean, &s.Var, &s.InvStd, &s.A, &s.B, &s.SumG, &s.SumGX} {
		b, err := l.ctx.Alloc(c)
		if err != nil {
			s.Release()
			return nil, err
		}
		b.SetRole(RoleBNState)
		*p = b
	}
	return s, nil
}

// Release frees the state's buffers.
func (s *BNState) Release() error {
	var errs []error
	for _, b := range []*Buffer{s.Mean, s.Var, s.InvStd, s.A, s.B, s.SumG, s.SumGX} {
		if b != nil {
			errs = append(errs, b.Release())
		}
	}
	return errors.Join(errs...)
}

func (s *BNState) check(op string, c int) error {
	if s == nil {
		return fmt.Errorf("opencl: %s: nil batch-norm state", op)
	}
	if s.C != c {
		return fmt.Errorf("opencl: %s: state of %d channels for %d", op, s.C, c)
	}
	return nil
}

// BNStats enqueues the per-channel mean and biased variance of x over its
// first rows rows (two passes, acc_t accumulators; channelStats).
func (l *Lib) BNStats(x *Buffer, g BNGeom, rows int, mean, variance *Buffer) error {
	const op = "batch-norm statistics"
	if err := g.check(op, rows); err != nil {
		return err
	}
	if err := need(op, g.N*g.C*g.HW, nb("x", x)); err != nil {
		return err
	}
	if err := need(op, g.C, nb("mean", mean), nb("variance", variance)); err != nil {
		return err
	}
	return l.channelMoments(x, g, rows, mean, variance, false)
}

// sliceGroups is about how many work-groups a channel reduction launches:
// one wave on a large GPU (an H200's 132 multiprocessors hold 8 groups of
// 256 items each), many more than the 16–256 channels of a paper network's
// batch norms, whose one work-group a channel would leave most of a GPU
// idle while it streams a 32×32 map's channel of 128 images (131,072 values).
const sliceGroups = 1024

// channelSlices is how many work-groups share each of c channels' m values
// in a sliced reduction, and how many values each takes (the last slice
// the rest, none empty): enough for about sliceGroups work-groups, with
// about 8 values a work item of a work-group of wg and never fewer than 4.
// It depends on the shape only, so a device sums the same way every step.
// One slice is the one-stage kernels' reduction.
func channelSlices(c, m, wg int) (slices, length int) {
	slices = max(1, min((m+8*wg-1)/(8*wg), (sliceGroups+c-1)/c))
	length = (m + slices - 1) / slices
	return (m + length - 1) / length, length
}

// slices is channelSlices for the work-groups of kernel name, or one slice
// (one work-group a channel) with GroupPerChannel set.
func (l *Lib) slices(c, m int, name string) (slices, length int) {
	if l.GroupPerChannel {
		return 1, m
	}
	return channelSlices(c, m, l.groupSize(name))
}

// channelMoments enqueues the per-channel mean and biased variance of x
// over its first rows rows into out (the mean) and out2 (the variance), or
// with split set into out in BNStatsSplit's layout: one work-group a channel
// where that fills the device, else each channel in slices whose moments a
// second launch merges (bn_moments_part, bn_moments_merge).
func (l *Lib) channelMoments(x *Buffer, g BNGeom, rows int, out, out2 *Buffer, split bool) error {
	m := rows * g.HW
	slices, length := l.slices(g.C, m, "bn_moments_part")
	if slices == 1 {
		if split {
			return l.groups("bn_stats_split", g.C, x, out, g.N, g.C, g.HW, rows)
		}
		return l.groups("bn_stats", g.C, x, out, out2, g.N, g.C, g.HW, rows)
	}
	l.mu.Lock() // the partial moments live in wsR until the merge reads them
	defer l.mu.Unlock()
	part, err := l.workspace(&l.wsR, 2*l.accWords()*g.C*slices)
	if err != nil {
		return err
	}
	if err := l.groups("bn_moments_part", g.C*slices, x, part, g.C, g.HW, rows, slices, length); err != nil {
		return err
	}
	if split {
		out2 = out
	}
	return l.elem("bn_moments_merge", g.C, part, out, out2, g.C, slices, length, m, b2i(split))
}

// BNForward enqueues training-mode batch norm with the batch's own
// statistics (bnOp): the mean and biased variance over the first rows
// rows (N, or a chunk's instance rows) into st, then y = γ·(x − μ)/√(σ² + ε)
// + β over all N rows as y = A·x + B (ReLU'd when relu is set).
func (l *Lib) BNForward(x, gamma, beta, y *Buffer, g BNGeom, rows int, eps float64, relu bool, st *BNState) error {
	if err := st.check("batch norm", g.C); err != nil {
		return err
	}
	if err := l.BNStats(x, g, rows, st.Mean, st.Var); err != nil {
		return err
	}
	return l.BNForwardFixed(x, gamma, beta, y, g, eps, relu, st)
}

// checkForward checks a batch-norm forward's geometry, state and buffers.
func checkForward(op string, x, gamma, beta, y *Buffer, g BNGeom, st *BNState) error {
	if err := g.check(op, g.N); err != nil {
		return err
	}
	if err := st.check(op, g.C); err != nil {
		return err
	}
	if err := need(op, g.N*g.C*g.HW, nb("x", x), nb("y", y)); err != nil {
		return err
	}
	return need(op, g.C, nb("gamma", gamma), nb("beta", beta))
}

// BNForwardFixed enqueues batch norm with the statistics already in
// st.Mean and st.Var (the minibatch's, held fixed by the chunked sweep of
// training/nn/bnsweep.go): InvStd, A and B into st, then y = A·x + B.
func (l *Lib) BNForwardFixed(x, gamma, beta, y *Buffer, g BNGeom, eps float64, relu bool, st *BNState) error {
	const op = "batch norm"
	if err := checkForward(op, x, gamma, beta, y, g, st); err != nil {
		return err
	}
	n := g.N * g.C * g.HW
	if err := l.elem("bn_coeffs", g.C, gamma, beta, st.Mean, st.Var, st.InvStd, st.A, st.B, g.C, l.acc(eps)); err != nil {
		return err
	}
	return l.elem("bn_affine", n, x, y, st.A, st.B, g.N, g.C, g.HW, b2i(relu))
}

// BNStatsSplit enqueues the per-channel mean and biased variance of x over
// its first rows rows, as BNStats, kept in the kernels' accumulator type:
// split (4·C floats) holds [mean hi | mean lo | var hi | var lo], each
// statistic the float pair whose sum is the accumulated value (a double
// where the device has one, as the CPU's channelStats). SplitPairs and
// JoinPairs convert on the host.
func (l *Lib) BNStatsSplit(x *Buffer, g BNGeom, rows int, split *Buffer) error {
	const op = "batch-norm statistics (split)"
	if err := g.check(op, rows); err != nil {
		return err
	}
	if err := need(op, g.N*g.C*g.HW, nb("x", x)); err != nil {
		return err
	}
	if err := need(op, 4*g.C, nb("split", split)); err != nil {
		return err
	}
	return l.channelMoments(x, g, rows, split, nil, true)
}

// BNForwardSplit enqueues batch norm with the statistics in split
// (BNStatsSplit's layout): the float mean and variance, InvStd, A and B
// into st, the coefficients computed from the unrounded statistics as
// training/nn/bnfused.go's bnForward computes them from float64 ones (the
// affine map decides the ReLU mask, forward and backward), then
// y = A·x + B (ReLU'd when relu is set).
func (l *Lib) BNForwardSplit(x, gamma, beta, split, y *Buffer, g BNGeom, eps float64, relu bool, st *BNState) error {
	const op = "batch norm (split statistics)"
	if err := checkForward(op, x, gamma, beta, y, g, st); err != nil {
		return err
	}
	n := g.N * g.C * g.HW
	if err := need(op, 4*g.C, nb("split", split)); err != nil {
		return err
	}
	if err := l.elem("bn_coeffs_split", g.C, gamma, beta, split, st.Mean, st.Var, st.InvStd, st.A, st.B, g.C, l.acc(eps)); err != nil {
		return err
	}
	return l.elem("bn_affine", n, x, y, st.A, st.B, g.N, g.C, g.HW, b2i(relu))
}

// SplitPairs writes v as float pairs: dst[:len(v)] the float values,
// dst[len(v):2·len(v)] what each misses (BNStatsSplit's layout for one
// statistic).
func SplitPairs(dst []float32, v []float64) {
	c := len(v)
	for i, x := range v {
		h := float32(x)
		dst[i], dst[c+i] = h, float32(x-float64(h))
	}
}

// JoinPairs is SplitPairs' inverse for c values.
func JoinPairs(src []float32, c int) []float64 {
	out := make([]float64, c)
	for i := range out {
		out[i] = float64(src[i]) + float64(src[c+i])
	}
	return out
}

// BNEval enqueues evaluation-mode batch norm (bnEvalOp): y = x·s + t with
// s = γ/√(r_σ² + ε), t = β − r_μ·s per channel (ReLU'd when relu is set).
func (l *Lib) BNEval(x, gamma, beta, runMean, runVar, y *Buffer, g BNGeom, eps float64, relu bool) error {
	const op = "batch norm (evaluation)"
	if err := g.check(op, g.N); err != nil {
		return err
	}
	n := g.N * g.C * g.HW
	if err := need(op, n, nb("x", x), nb("y", y)); err != nil {
		return err
	}
	if err := need(op, g.C, nb("gamma", gamma), nb("beta", beta), nb("running mean", runMean), nb("running variance", runVar)); err != nil {
		return err
	}
	return l.elem("bn_eval", n, x, y, gamma, beta, runMean, runVar, g.N, g.C, g.HW, b2i(relu), l.acc(eps))
}

// BNMode is which statistics a batch-norm backward pass differentiates
// through.
type BNMode int

const (
	// BNOwnStats: the batch's own statistics (over the first rows rows),
	// with their coupling terms: ∂L/∂x = γ/√(σ²+ε)·(g − Σg/M − x̂·Σ(g·x̂)/M).
	BNOwnStats BNMode = iota
	// BNFixedStats: statistics held constant (∂L/∂x = γ/√(σ²+ε)·g).
	BNFixedStats
	// BNFixedAdjoint: fixed statistics plus the adjoints of the
	// minibatch's statistics (bnsweep's exact gradient):
	// + (ā_μ + 2·ā_σ²·(x − μ))/count on the first rows rows.
	BNFixedAdjoint
)

// BNAdjoint holds the adjoints of a layer's minibatch statistics (C values
// each) and the number of values behind them, for BNFixedAdjoint.
type BNAdjoint struct {
	Mean, Var *Buffer
	Count     float64
}

// BNBackward enqueues the backward pass of training-mode batch norm
// (bnGradOp) with the state of the forward pass: Σg and Σg·x̂ over all N
// rows into st.SumG (∂L/∂β) and st.SumGX (∂L/∂γ), then ∂L/∂x into dx
// (g = dy masked by the forward's ReLU when relu is set; rows from rows on
// are a chunk's padding and get no coupling terms). adj is used by
// BNFixedAdjoint only.
func (l *Lib) BNBackward(x, gamma, dy, dx *Buffer, g BNGeom, rows int, relu bool, st *BNState, mode BNMode, adj *BNAdjoint) error {
	const op = "batch-norm gradient"
	if err := g.check(op, rows); err != nil {
		return err
	}
	if err := st.check(op, g.C); err != nil {
		return err
	}
	n := g.N * g.C * g.HW
	if err := need(op, n, nb("x", x), nb("dy", dy), nb("dx", dx)); err != nil {
		return err
	}
	if err := need(op, g.C, nb("gamma", gamma)); err != nil {
		return err
	}
	adjMean, adjVar, count := st.Mean, st.Var, 1.0 // unused placeholders
	switch mode {
	case BNOwnStats, BNFixedStats:
	case BNFixedAdjoint:
		if adj == nil || !(adj.Count > 0) {
			return fmt.Errorf("opencl: %s: fixed statistics with adjoints need the adjoints and a count > 0", op)
		}
		if err := need(op, g.C, nb("adjoint of the mean", adj.Mean), nb("adjoint of the variance", adj.Var)); err != nil {
			return err
		}
		adjMean, adjVar, count = adj.Mean, adj.Var, adj.Count
	default:
		return fmt.Errorf("opencl: %s: unknown mode %d", op, mode)
	}
	l.mu.Lock() // the launches belong together (the sums feed ∂L/∂x; the partial sums live in wsR)
	defer l.mu.Unlock()
	if slices, length := l.slices(g.C, g.N*g.HW, "bn_grad_sums_part"); slices == 1 {
		if err := l.groups("bn_grad_sums", g.C, x, dy, st.A, st.B, st.Mean, st.InvStd, st.SumG, st.SumGX, g.N, g.C, g.HW, b2i(relu)); err != nil {
			return err
		}
	} else {
		part, err := l.workspace(&l.wsR, 2*l.accWords()*g.C*slices)
		if err != nil {
			return err
		}
		if err := l.groups("bn_grad_sums_part", g.C*slices, x, dy, st.A, st.B, st.Mean, part, g.N, g.C, g.HW, b2i(relu), slices, length); err != nil {
			return err
		}
		if err := l.elem("bn_grad_sums_merge", g.C, part, st.InvStd, st.SumG, st.SumGX, g.C, slices); err != nil {
			return err
		}
	}
	m := float64(rows * g.HW)
	return l.elem("bn_grad_dx", n, x, dy, st.A, st.B, gamma, st.Mean, st.InvStd, st.SumG, st.SumGX, adjMean, adjVar, dx,
		g.N, g.C, g.HW, rows, b2i(relu), int(mode), l.acc(m), l.acc(count))
}

// BNCollect enqueues, after a backward pass with fixed statistics, the
// partial derivatives of the loss with respect to the layer's mean and
// variance, added into dMean and dVar: −γ·invstd·Σg and
// −½·γ·invstd²·Σg·x̂ (bnBackward with collect set).
func (l *Lib) BNCollect(gamma *Buffer, st *BNState, dMean, dVar *Buffer) error {
	const op = "batch-norm adjoints"
	if st == nil {
		return fmt.Errorf("opencl: %s: nil state", op)
	}
	if err := need(op, st.C, nb("gamma", gamma), nb("dMean", dMean), nb("dVar", dVar)); err != nil {
		return err
	}
	return l.elem("bn_collect", st.C, gamma, st.InvStd, st.SumG, st.SumGX, dMean, dVar, st.C)
}

// BNFoldSplit enqueues the fold of a chunk's statistics (split, in
// BNStatsSplit's layout, over m values) into the minibatch's acc (4·C
// floats: mean and sum of squared deviations as float pairs) over count
// values so far: BNFold in the kernels' accumulator type, for a sweep kept
// on the device. The caller advances count by m.
func (l *Lib) BNFoldSplit(acc, split *Buffer, c int, count, m float64) error {
	const op = "batch-norm fold (split statistics)"
	if err := positive(op, ni("C", c)); err != nil {
		return err
	}
	if count < 0 || !(m > 0) {
		return fmt.Errorf("opencl: %s: count %v and chunk size %v, want ≥ 0 and > 0", op, count, m)
	}
	if err := need(op, 4*c, nb("acc", acc), nb("split", split)); err != nil {
		return err
	}
	return l.elem("bn_fold_split", c, acc, split, c, l.acc(count), l.acc(m))
}

// BNFinishSplit enqueues the minibatch's statistics from acc (BNFoldSplit's)
// over count values into fixed, in BNStatsSplit's layout: the mean, and
// the biased variance m2/count.
func (l *Lib) BNFinishSplit(acc, fixed *Buffer, count float64, c int) error {
	const op = "batch-norm fold (split statistics)"
	if err := positive(op, ni("C", c)); err != nil {
		return err
	}
	if !(count > 0) {
		return fmt.Errorf("opencl: %s: no instance in the minibatch (count %v)", op, count)
	}
	if err := need(op, 4*c, nb("acc", acc), nb("fixed", fixed)); err != nil {
		return err
	}
	return l.elem("bn_finish_split", c, acc, fixed, c, l.acc(count))
}

// BNRunning enqueues the running averages' update (BatchNorm.update,
// PyTorch's rule): runMean = (1−momentum)·runMean + momentum·mean and
// runVar = (1−momentum)·runVar + momentum·variance·count/(count−1), the
// unbiasing factor 1 when count ≤ 1 (count: values per channel behind the
// statistics).
func (l *Lib) BNRunning(runMean, runVar, mean, variance *Buffer, c int, momentum float64, count int) error {
	const op = "batch-norm running averages"
	if err := positive(op, ni("C", c)); err != nil {
		return err
	}
	if err := need(op, c, nb("running mean", runMean), nb("running variance", runVar), nb("mean", mean), nb("variance", variance)); err != nil {
		return err
	}
	return l.elem("bn_running", c, runMean, runVar, mean, variance, c, l.acc(momentum), l.acc(unbiasFactor(count)))
}

// unbiasFactor is the running variance's unbiasing factor count/(count−1),
// 1 when count ≤ 1.
func unbiasFactor(count int) float64 {
	if count > 1 {
		return float64(count) / float64(count-1)
	}
	return 1
}
