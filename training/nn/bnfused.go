package nn

import (
	"errors"
	"fmt"
	"hash"
	"math"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/chewxy/hm"
	"github.com/llpfc/llpfc/internal/par"
	"github.com/llpfc/llpfc/internal/vec"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// FusedBatchNorm switches training-mode BatchNorm (with γ) to the fused op
// bnOp; tests turn it off to compare with the composite graph of gorgonia
// operations it replaces.
var FusedBatchNorm = true

// bnOpSeq numbers bnOps so that two layers never hash alike (each op keeps
// its own statistics and running-statistics record).
var bnOpSeq atomic.Int64

// batchNormFused adds y = BN(x) (or ReLU(BN(x)) when relu is set) in
// training mode to x's graph as one operation: batch mean and biased
// variance per channel, y = (x − μ)/√(σ² + ε)·γ + β. It is a memory lever
// (bench/NOTES.md, "2a"): the composite graph (x − μ, its square, the broadcast scale
// and shift, the product, the sum, the ReLU, and the gradient of each) kept
// about ten activation-sized tensors per layer alive for the backward pass;
// this op keeps one (its output) and its backward ops recompute x̂ from x
// and the per-channel statistics of the forward run. Backward, with
// g = ∂L/∂y (times the ReLU mask), M = N·H·W:
//
//	∂L/∂β = Σ g,  ∂L/∂γ = Σ g·x̂,  ∂L/∂x = γ/√(σ²+ε)·(g − Σg/M − x̂·Σ(g·x̂)/M),
//
// which is the gradient of the composite graph (TestBatchNormFusedMatchesComposite,
// TestBatchNormGradient, TestBatchNormReLUGradient). Channels are shared out to
// the cores; each channel's sums run in one goroutine in a fixed order
// (float64 accumulators), so results do not depend on the core count.
func (b *BatchNorm) batchNormFused(x *gorgonia.Node, relu, track bool) (*gorgonia.Node, error) {
	s := x.Shape()
	hw := 1
	if b.Dims == 4 {
		hw = s[2] * s[3]
	}
	op := &bnOp{n: s[0], c: s[1], hw: hw, dims: b.Dims, eps: b.Eps, relu: relu, id: bnOpSeq.Add(1)}
	y, err := gorgonia.ApplyOp(op, x, b.Gamma, b.Beta)
	if err != nil {
		return nil, err
	}
	if track {
		op.rec = &bnRecord{count: s.TotalSize() / s[1], roots: gorgonia.Nodes{y}}
		op.layer = b
		b.records = append(b.records, op.rec)
	}
	return y, nil
}

// bnOp is the forward op of batchNormFused; inputs x, γ, β.
type bnOp struct {
	n, c, hw, dims int
	eps            float64
	relu           bool
	id             int64
	rec            *bnRecord  // nil: statistics not recorded
	layer          *BatchNorm // the layer whose running averages rec feeds
	// glob, when set, is the op's state in a loss evaluated chunk by chunk
	// (bnSweep): which rows of the chunk are instances, and in exact mode
	// the minibatch's statistics and their adjoints.
	glob *bnGlobal
	// dev, when set, keeps the op's statistics on a back end's device
	// (KeepOnDevice).
	dev BNDevice

	mu sync.Mutex
	// Per channel, from the last forward run: μ, 1/√(σ²+ε), and the
	// affine map y = a·x + b the output used (kept so the backward ReLU
	// mask is the forward's bit for bit).
	mean, invStd, variance []float64
	a32, b32               []float32
	a64, b64               []float64
	// Per channel, the backward's constants k, q, r, m (dx = k·g + q·(x − m)
	// + r) and a row of zeros (a chunk's padding rows take q = r = 0), in
	// the element type: five rows of c.
	kqrm32 []float32
	kqrm64 []float64
}

func (o *bnOp) Arity() int { return 3 }
func (o *bnOp) Type() hm.Type {
	t := gorgonia.TensorType{Dims: o.dims, Of: hm.TypeVariable('a')}
	return hm.NewFnType(t, t, t, t)
}
func (o *bnOp) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	s, ok := in[0].(tensor.Shape)
	if !ok {
		return nil, fmt.Errorf("batch norm: input shape %v", in[0])
	}
	return s.Clone(), nil
}
func (o *bnOp) ReturnsPtr() bool     { return false }
func (o *bnOp) CallsExtern() bool    { return false }
func (o *bnOp) OverwritesInput() int { return -1 }
func (o *bnOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "llpfc.BatchNorm(n=%d,c=%d,hw=%d,relu=%t,#%d)", o.n, o.c, o.hw, o.relu, o.id)
}
func (o *bnOp) Hashcode() uint32 { return OpHash(o) }
func (o *bnOp) String() string {
	if o.relu {
		return fmt.Sprintf("BatchNormReLU(%d×%d×%d)", o.n, o.c, o.hw)
	}
	return fmt.Sprintf("BatchNorm(%d×%d×%d)", o.n, o.c, o.hw)
}

// Kind names the op for the compute back ends (device.OpKind).
func (o *bnOp) Kind() string {
	if o.relu {
		return "llpfc.BatchNormReLU"
	}
	return "llpfc.BatchNorm"
}

func (o *bnOp) DiffWRT(n int) []bool {
	d := make([]bool, n)
	for i := range d {
		d[i] = true
	}
	return d
}

func (o *bnOp) SymDiff(inputs gorgonia.Nodes, output, grad *gorgonia.Node) (gorgonia.Nodes, error) {
	// The gradient with respect to x computes the per-channel sums Σg and
	// Σg·x̂ that those with respect to γ and β are; they take it as a fourth
	// input, so they run after it in the same pass and read its sums.
	sums := new(bnSums)
	dx, err := gorgonia.ApplyOp(&bnGradOp{fwd: o, wrt: 0, sums: sums}, inputs[0], inputs[1], grad)
	if err != nil {
		return nil, err
	}
	out := gorgonia.Nodes{dx, nil, nil}
	for wrt := 1; wrt < 3; wrt++ {
		if out[wrt], err = gorgonia.ApplyOp(&bnGradOp{fwd: o, wrt: wrt, sums: sums}, inputs[0], inputs[1], grad, dx); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (o *bnOp) Do(vs ...gorgonia.Value) (gorgonia.Value, error) { return o.UsePreallocDo(nil, vs...) }

func (o *bnOp) UsePreallocDo(prealloc gorgonia.Value, vs ...gorgonia.Value) (gorgonia.Value, error) {
	if len(vs) != 3 {
		return nil, fmt.Errorf("%v: %d inputs, want 3", o, len(vs))
	}
	if vs[0].Shape().TotalSize() != o.n*o.c*o.hw || vs[1].Shape().TotalSize() != o.c || vs[2].Shape().TotalSize() != o.c {
		return nil, fmt.Errorf("%v: input shapes %v, %v, %v", o, vs[0].Shape(), vs[1].Shape(), vs[2].Shape())
	}
	out := outTensor(prealloc, vs[0].Dtype(), vs[0].Shape(), vs...)
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.mean) != o.c {
		o.mean, o.invStd, o.variance = make([]float64, o.c), make([]float64, o.c), make([]float64, o.c)
	}
	var err error
	switch x := vs[0].Data().(type) {
	case []float32:
		if len(o.a32) != o.c {
			o.a32, o.b32 = make([]float32, o.c), make([]float32, o.c)
		}
		bnForward(o, x, vs[1].Data().([]float32), vs[2].Data().([]float32), out.Data().([]float32), o.a32, o.b32)
	case []float64:
		if len(o.a64) != o.c {
			o.a64, o.b64 = make([]float64, o.c), make([]float64, o.c)
		}
		bnForward(o, x, vs[1].Data().([]float64), vs[2].Data().([]float64), out.Data().([]float64), o.a64, o.b64)
	default:
		err = fmt.Errorf("%v: element type %T not supported", o, vs[0].Data())
	}
	if err != nil {
		return nil, err
	}
	if o.rec != nil {
		o.record(vs[0].Dtype())
	}
	return out, nil
}

// record hands the batch mean and biased variance to the layer's record
// (folded into the running averages by UpdateRunningStats).
func (o *bnOp) record(dt tensor.Dtype) {
	shape := tensor.Shape{1, o.c}
	if o.dims == 4 {
		shape = tensor.Shape{1, o.c, 1, 1}
	}
	mean, variance := tensor.New(tensor.Of(dt), tensor.WithShape(shape...)), tensor.New(tensor.Of(dt), tensor.WithShape(shape...))
	// The element type is looked up once: Data() per channel cost ≈ 90 µs
	// a layer of ResNet18, serial time on every core count.
	switch m := mean.Data().(type) {
	case []float32:
		vr := variance.Data().([]float32)
		for c := range m {
			m[c], vr[c] = float32(o.mean[c]), float32(o.variance[c])
		}
	case []float64:
		copy(m, o.mean)
		copy(variance.Data().([]float64), o.variance)
	}
	o.rec.mean, o.rec.variance, o.rec.device = mean, variance, nil
	o.rec.count = o.statCount()
}

// statCount is the number of values per channel behind the statistics of
// the last run: the minibatch's in exact mode, the chunk's instance rows
// otherwise.
func (o *bnOp) statCount() int {
	if g := o.glob; g != nil && g.mode == bnFixed {
		return int(g.count)
	}
	return o.rows() * o.hw
}

// rows is the number of leading rows of the batch that are instances (the
// rest is a chunk's zero padding, kept out of the statistics).
func (o *bnOp) rows() int {
	if g := o.glob; g != nil && g.valid > 0 && g.valid < o.n {
		return g.valid
	}
	return o.n
}

func bnForward[F float](o *bnOp, x, gamma, beta, y, a, b []F) {
	chw, nv, hw := o.c*o.hw, o.rows(), o.hw
	g := o.glob
	fixed := g != nil && g.mode == bnFixed
	par.Channels(o.c, func(lo, hi int) {
		// Instance by instance over the channels lo…hi−1, whose planes lie
		// next to each other in each instance (vec's *Planes): each
		// channel's sums still add its planes in instance order.
		mean, vars := o.mean[lo:hi], o.variance[lo:hi]
		if fixed {
			copy(mean, g.mean[lo:hi])
			copy(vars, g.variance[lo:hi])
		} else {
			channelStats(x, lo, hi, nv, hw, chw, mean, vars)
		}
		for c := lo; c < hi; c++ {
			mu, vr := o.mean[c], o.variance[c]
			if !fixed && g != nil && g.mode == bnAccumulate {
				g.fold(c, mu, vr, float64(nv*hw))
			}
			is := 1 / math.Sqrt(vr+o.eps)
			o.invStd[c] = is
			sc := float64(gamma[c]) * is
			a[c], b[c] = F(sc), F(float64(beta[c])-mu*sc)
		}
		for i := 0; i < o.n; i++ {
			off, end := i*chw+lo*hw, i*chw+hi*hw
			vec.AffinePlanes(y[off:end], x[off:end], hw, a[lo:hi], b[lo:hi], o.relu)
		}
	})
	if g != nil && g.mode == bnAccumulate {
		g.count += float64(nv * hw)
	}
}

// channelStats writes the mean and biased variance of channels lo…hi−1
// over the first nv rows of x into mean and variance (two passes, float64
// accumulators; internal/vec's AVX2 passes for float32): each channel's
// sums add its planes in instance order, the same sums whichever range of
// channels a core is given.
func channelStats[F float](x []F, lo, hi, nv, hw, chw int, mean, variance []float64) {
	m := float64(nv * hw)
	clear(mean)
	for i := 0; i < nv; i++ {
		vec.SumPlanes(mean, x[i*chw+lo*hw:i*chw+hi*hw], hw)
	}
	for c := range mean {
		mean[c] /= m
	}
	clear(variance)
	for i := 0; i < nv; i++ {
		vec.SqDevPlanes(variance, x[i*chw+lo*hw:i*chw+hi*hw], hw, mean)
	}
	for c := range variance {
		variance[c] /= m
	}
}

// bnGradOp computes one gradient of bnOp (wrt 0: x, 1: γ, 2: β) from x, γ
// and ∂L/∂y, with the statistics of the forward op's last run. The
// gradient with respect to x also leaves the per-channel sums in sums; the
// two others take that gradient as a fourth input (for the order) and
// return the sums.
type bnGradOp struct {
	fwd  *bnOp
	wrt  int
	sums *bnSums
}

// bnSums holds, per channel, Σg and Σg·x̂ (g = ∂L/∂y times the ReLU mask)
// of the last backward run of one set of gradient ops: ∂L/∂β and ∂L/∂γ.
type bnSums struct {
	sg, sgx []float64
	ready   bool
}

func (o *bnGradOp) Arity() int {
	if o.wrt == 0 {
		return 3
	}
	return 4
}
func (o *bnGradOp) Type() hm.Type {
	t := gorgonia.TensorType{Dims: o.fwd.dims, Of: hm.TypeVariable('a')}
	ts := make([]hm.Type, o.Arity()+1)
	for i := range ts {
		ts[i] = t
	}
	return hm.NewFnType(ts...)
}
func (o *bnGradOp) shape(x tensor.Shape) tensor.Shape {
	if o.wrt == 0 {
		return x.Clone()
	}
	if o.fwd.dims == 4 {
		return tensor.Shape{1, o.fwd.c, 1, 1}
	}
	return tensor.Shape{1, o.fwd.c}
}
func (o *bnGradOp) InferShape(in ...gorgonia.DimSizer) (tensor.Shape, error) {
	s, ok := in[0].(tensor.Shape)
	if !ok {
		return nil, fmt.Errorf("batch norm gradient: input shape %v", in[0])
	}
	return o.shape(s), nil
}
func (o *bnGradOp) ReturnsPtr() bool     { return false }
func (o *bnGradOp) CallsExtern() bool    { return false }
func (o *bnGradOp) OverwritesInput() int { return -1 }
func (o *bnGradOp) WriteHash(h hash.Hash) {
	fmt.Fprintf(h, "llpfc.BatchNormGrad(wrt=%d,", o.wrt)
	o.fwd.WriteHash(h)
	fmt.Fprint(h, ")")
}
func (o *bnGradOp) Hashcode() uint32 { return OpHash(o) }
func (o *bnGradOp) String() string   { return fmt.Sprintf("%vGrad%d", o.fwd, o.wrt) }

// Kind names the op and the input it differentiates (device.OpKind).
func (o *bnGradOp) Kind() string {
	return o.fwd.Kind() + "Grad(" + map[int]string{0: "x", 1: "γ", 2: "β"}[o.wrt] + ")"
}

func (o *bnGradOp) Do(vs ...gorgonia.Value) (gorgonia.Value, error) {
	return o.UsePreallocDo(nil, vs...)
}

func (o *bnGradOp) UsePreallocDo(prealloc gorgonia.Value, vs ...gorgonia.Value) (gorgonia.Value, error) {
	if len(vs) != o.Arity() {
		return nil, fmt.Errorf("%v: %d inputs, want %d", o, len(vs), o.Arity())
	}
	f := o.fwd
	if vs[0].Shape().TotalSize() != f.n*f.c*f.hw || vs[2].Shape().TotalSize() != f.n*f.c*f.hw {
		return nil, fmt.Errorf("%v: input shapes %v, %v", o, vs[0].Shape(), vs[2].Shape())
	}
	out := outTensor(prealloc, vs[0].Dtype(), o.shape(vs[0].Shape()), vs...)
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.mean) != f.c {
		return nil, errors.New("batch norm gradient: the forward op has not run")
	}
	s := o.sums
	if o.wrt != 0 {
		if !s.ready {
			return nil, errors.New("batch norm gradient: the gradient with respect to x has not run")
		}
		src := s.sgx
		if o.wrt == 2 {
			src = s.sg
		}
		switch d := out.Data().(type) {
		case []float32:
			for c, v := range src {
				d[c] = float32(v)
			}
		case []float64:
			copy(d, src)
		default:
			return nil, fmt.Errorf("%v: element type %T not supported", o, d)
		}
		return out, nil
	}
	if len(s.sg) != f.c {
		s.sg, s.sgx = make([]float64, f.c), make([]float64, f.c)
	}
	switch x := vs[0].Data().(type) {
	case []float32:
		if len(f.kqrm32) != 5*f.c {
			f.kqrm32 = make([]float32, 5*f.c)
		}
		bnBackward(f, x, vs[1].Data().([]float32), vs[2].Data().([]float32), out.Data().([]float32), f.a32, f.b32, f.kqrm32, s)
	case []float64:
		if len(f.kqrm64) != 5*f.c {
			f.kqrm64 = make([]float64, 5*f.c)
		}
		bnBackward(f, x, vs[1].Data().([]float64), vs[2].Data().([]float64), out.Data().([]float64), f.a64, f.b64, f.kqrm64, s)
	default:
		return nil, fmt.Errorf("%v: element type %T not supported", o, vs[0].Data())
	}
	s.ready = true
	return out, nil
}

// bnBackward computes ∂L/∂x into dx and leaves Σg and Σg·x̂ per channel in
// s (g = dy times the forward's ReLU mask).
func bnBackward[F float](f *bnOp, x, gamma, dy, dx, a, b, kqrm []F, s *bnSums) {
	chw, nv, hw := f.c*f.hw, f.rows(), f.hw
	m := float64(nv * hw)
	gl := f.glob
	fixed := gl != nil && gl.mode == bnFixed
	kf, qf, rf, mf, zeros := kqrm[:f.c], kqrm[f.c:2*f.c], kqrm[2*f.c:3*f.c], kqrm[3*f.c:4*f.c], kqrm[4*f.c:5*f.c]
	par.Channels(f.c, func(lo, hi int) {
		// Instance by instance over the channels lo…hi−1, as bnForward.
		sg, sgd := s.sg[lo:hi], s.sgx[lo:hi]
		clear(sg)
		clear(sgd)
		for i := 0; i < f.n; i++ {
			off, end := i*chw+lo*hw, i*chw+hi*hw
			vec.MaskedSumsPlanes(sg, sgd, x[off:end], dy[off:end], hw, a[lo:hi], b[lo:hi], f.relu, f.mean[lo:hi])
		}
		for c := lo; c < hi; c++ {
			mu, is := f.mean[c], f.invStd[c]
			sg := s.sg[c]
			sgx := s.sgx[c] * is
			s.sgx[c] = sgx
			k0 := float64(gamma[c]) * is
			if fixed && gl.collect {
				// ∂/∂μ = −γ/√(σ²+ε)·Σg, ∂/∂σ² = −½·γ/(σ²+ε)·Σ g·x̂ (collected by
				// the gradient with respect to x, which every backward pass
				// through the layer runs, whatever the leaves differentiated)
				gl.dMean[c] += -k0 * sg
				gl.dVar[c] += -0.5 * k0 * is * sgx
			}
			// dx = p·g + q·(x − μ) + r per instance value: with fixed
			// statistics x enters only through x̂, and in exact mode the
			// minibatch statistics' adjoints (ā_μ, ā_σ²) add (ā_μ + 2·ā_σ²·(x − μ))/M;
			// with the chunk's own statistics the usual coupling terms apply;
			// the padding rows of a chunk are not in the statistics.
			var q, r float64
			switch {
			case fixed && gl.extra:
				r, q = gl.adjMean[c]/gl.count, 2*gl.adjVar[c]/gl.count
			case !fixed:
				r, q = -k0*sg/m, -k0*is*sgx/m
			}
			// In the element type with the constants rounded once; x − μ is
			// formed first, as PyTorch's CPU kernel does, so a large mean does
			// not cancel.
			kf[c], qf[c], rf[c], mf[c] = F(k0), F(q), F(r), F(mu)
		}
		zero := zeros[lo:hi]
		for i := 0; i < f.n; i++ {
			off, end := i*chw+lo*hw, i*chw+hi*hw
			q, r := qf[lo:hi], rf[lo:hi]
			if i >= nv {
				q, r = zero, zero
			}
			vec.GradPlanes(dx[off:end], x[off:end], dy[off:end], hw, a[lo:hi], b[lo:hi], f.relu, kf[lo:hi], q, r, mf[lo:hi])
		}
	})
}

// batchNormEvalFused adds evaluation-mode y = x·s + t (ReLU'd when relu is
// set), s = γ/√(r_σ² + ε), t = β − r_μ·s per channel, as one operation
// without a gradient (only the test-set evaluator runs BN in evaluation
// mode): the composite graph kept the broadcast scale and shift, the product,
// the sum and the ReLU, each activation-sized, for every layer of the
// evaluation batch (TestBatchNormEvalFusedMatchesComposite).
func (b *BatchNorm) batchNormEvalFused(x *gorgonia.Node, relu bool) (*gorgonia.Node, error) {
	s := x.Shape()
	hw := 1
	if b.Dims == 4 {
		hw = s[2] * s[3]
	}
	op := &bnEvalOp{bnOp{n: s[0], c: s[1], hw: hw, dims: b.Dims, eps: b.Eps, relu: relu, id: bnOpSeq.Add(1)}}
	return gorgonia.ApplyOp(op, x, b.Gamma, b.Beta, b.RunMean, b.RunVar)
}

// bnEvalOp is the op of batchNormEvalFused; inputs x, γ, β, r_μ, r_σ².
type bnEvalOp struct{ bnOp }

func (o *bnEvalOp) Arity() int { return 5 }
func (o *bnEvalOp) Type() hm.Type {
	t := gorgonia.TensorType{Dims: o.dims, Of: hm.TypeVariable('a')}
	return hm.NewFnType(t, t, t, t, t, t)
}
func (o *bnEvalOp) WriteHash(h hash.Hash) {
	fmt.Fprint(h, "eval:")
	o.bnOp.WriteHash(h)
}
func (o *bnEvalOp) Hashcode() uint32 { return OpHash(o) }
func (o *bnEvalOp) String() string   { return "Eval" + o.bnOp.String() }

// Kind names the op for the compute back ends (device.OpKind).
func (o *bnEvalOp) Kind() string         { return "llpfc.Eval" + strings.TrimPrefix(o.bnOp.Kind(), "llpfc.") }
func (o *bnEvalOp) DiffWRT(n int) []bool { return make([]bool, n) }
func (o *bnEvalOp) SymDiff(gorgonia.Nodes, *gorgonia.Node, *gorgonia.Node) (gorgonia.Nodes, error) {
	return nil, errors.New("evaluation-mode batch norm has no gradient (train mode is differentiable)")
}
func (o *bnEvalOp) Do(vs ...gorgonia.Value) (gorgonia.Value, error) {
	return o.UsePreallocDo(nil, vs...)
}

func (o *bnEvalOp) UsePreallocDo(prealloc gorgonia.Value, vs ...gorgonia.Value) (gorgonia.Value, error) {
	if len(vs) != 5 {
		return nil, fmt.Errorf("%v: %d inputs, want 5", o, len(vs))
	}
	if vs[0].Shape().TotalSize() != o.n*o.c*o.hw {
		return nil, fmt.Errorf("%v: input shape %v", o, vs[0].Shape())
	}
	for _, v := range vs[1:] {
		if v.Shape().TotalSize() != o.c {
			return nil, fmt.Errorf("%v: parameter shape %v", o, v.Shape())
		}
	}
	out := outTensor(prealloc, vs[0].Dtype(), vs[0].Shape(), vs...)
	switch x := vs[0].Data().(type) {
	case []float32:
		bnEval(&o.bnOp, x, vs[1].Data().([]float32), vs[2].Data().([]float32), vs[3].Data().([]float32), vs[4].Data().([]float32), out.Data().([]float32))
	case []float64:
		bnEval(&o.bnOp, x, vs[1].Data().([]float64), vs[2].Data().([]float64), vs[3].Data().([]float64), vs[4].Data().([]float64), out.Data().([]float64))
	default:
		return nil, fmt.Errorf("%v: element type %T not supported", o, vs[0].Data())
	}
	return out, nil
}

func bnEval[F float](o *bnOp, x, gamma, beta, rm, rv, y []F) {
	chw := o.c * o.hw
	par.Channels(o.c, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			sc := float64(gamma[c]) / math.Sqrt(float64(rv[c])+o.eps)
			a, b := F(sc), F(float64(beta[c])-float64(rm[c])*sc)
			for i := 0; i < o.n; i++ {
				off := i*chw + c*o.hw
				ys := y[off : off+o.hw]
				for k, v := range x[off : off+o.hw] {
					z := v*a + b
					if o.relu && !(z > 0) {
						z = 0
					}
					ys[k] = z
				}
			}
		}
	})
}
