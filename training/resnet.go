package training

import (
	"fmt"
	"math/rand/v2"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// This file holds ResNet-18 and the layers with out-of-graph state that the
// convolutional models of Appendix `suppsec: exp` share (wrn.go, vgg.go,
// llpgan*.go): batch normalization with running statistics, dropout with
// masks drawn from an explicit random stream, global and adaptive average
// pooling, and the two optional interfaces a training loop uses to drive
// them (StochasticModel, BatchNormModel).

// StochasticModel is implemented by models whose training forward pass
// draws random numbers (dropout masks). gorgonia's own Dropout seeds itself
// from the clock; these models instead hold each mask in an input node that
// Resample refills from the caller's stream, so the same seed gives the same
// run. A loop must call Resample before every run of a tape that contains a
// training-mode Forward; until the first Resample every mask keeps all units.
type StochasticModel interface {
	Model
	Resample(rng *rand.Rand)
}

// BatchNormModel is implemented by models with batch normalization.
//
// In a training-mode Forward each batch-norm layer normalizes with the batch
// mean and (biased) variance and, while tracking is on, records them through
// gorgonia.Read nodes (executed when the whole graph is compiled into the
// tape, or when RunningStatRoots are included in a subgraph). After each
// run of the training tape the loop calls UpdateRunningStats, which folds
// every recorded batch into the running averages as PyTorch does
// (r ← (1−m)·r + m·b, with the unbiased variance). Evaluation-mode Forward
// normalizes with the running averages. LLP-VAT's code switches tracking off
// for its perturbed passes (_disable_tracking_bn_stats); VATLoss does the
// same through SetTrackRunningStats.
type BatchNormModel interface {
	Model
	SetTrackRunningStats(on bool)
	UpdateRunningStats() error
	// RunningStats returns the non-trainable running means and variances,
	// in a fixed order (checkpoint state).
	RunningStats() gorgonia.Nodes
	// RunningStatRoots returns the Read nodes that copy batch statistics
	// out of the tape.
	RunningStatRoots() gorgonia.Nodes
}

// netState is the out-of-graph state of a model: its dropout masks and its
// batch-norm layers. Models embed it to implement StochasticModel and
// BatchNormModel.
type netState struct {
	g       *gorgonia.ExprGraph
	dt      tensor.Dtype
	masks   []dropMask
	bns     []*BatchNorm
	noTrack bool
}

type dropMask struct {
	node *gorgonia.Node
	p    float64
}

// Resample draws a fresh keep/drop pattern for every dropout mask built so
// far, in the order the masks were created: each unit is kept with
// probability 1−p and then scaled by 1/(1−p) (inverted dropout, as
// torch.nn.Dropout).
func (s *netState) Resample(rng *rand.Rand) {
	for _, m := range s.masks {
		scale := 1 / (1 - m.p)
		switch d := m.node.Value().Data().(type) {
		case []float32:
			for i := range d {
				if rng.Float64() < m.p {
					d[i] = 0
				} else {
					d[i] = float32(scale)
				}
			}
		case []float64:
			for i := range d {
				if rng.Float64() < m.p {
					d[i] = 0
				} else {
					d[i] = scale
				}
			}
		}
	}
}

// dropout multiplies x by a mask node in training mode with p > 0 and
// returns x unchanged otherwise.
func (s *netState) dropout(x *gorgonia.Node, p float64, train bool) (*gorgonia.Node, error) {
	if !train || p == 0 {
		return x, nil
	}
	if p < 0 || p >= 1 {
		return nil, fmt.Errorf("dropout probability %v, want in [0, 1)", p)
	}
	shape := x.Shape().Clone()
	mask := gorgonia.NewTensor(s.g, s.dt, shape.Dims(), gorgonia.WithShape(shape...),
		gorgonia.WithName(fmt.Sprintf("dropout-mask-%d", len(s.masks))),
		gorgonia.WithValue(constTensor(s.dt, shape, 1)))
	s.masks = append(s.masks, dropMask{node: mask, p: p})
	return gorgonia.HadamardProd(x, mask)
}

// SetTrackRunningStats switches the recording of batch statistics by later
// training-mode Forward calls on or off.
func (s *netState) SetTrackRunningStats(on bool) { s.noTrack = !on }

// UpdateRunningStats folds the batch statistics recorded by the last run of
// the tape into the running averages.
func (s *netState) UpdateRunningStats() error {
	for _, b := range s.bns {
		if err := b.update(); err != nil {
			return err
		}
	}
	return nil
}

// RunningStats returns each batch-norm layer's running mean and variance.
func (s *netState) RunningStats() gorgonia.Nodes {
	var ns gorgonia.Nodes
	for _, b := range s.bns {
		ns = append(ns, b.RunMean, b.RunVar)
	}
	return ns
}

// RunningStatRoots returns the Read nodes of all recorded batches.
func (s *netState) RunningStatRoots() gorgonia.Nodes {
	var ns gorgonia.Nodes
	for _, b := range s.bns {
		for _, r := range b.records {
			if r.roots != nil {
				ns = append(ns, r.roots...)
				continue
			}
			ns = append(ns, r.readMean, r.readVar)
		}
	}
	return ns
}

func (s *netState) newBatchNorm(name string, channels, dims int, momentum float64, scale bool) *BatchNorm {
	b := newBatchNorm(s.g, s.dt, name, channels, dims, momentum, scale)
	s.bns = append(s.bns, b)
	return b
}

func (s *netState) bn(b *BatchNorm, x *gorgonia.Node, train bool) (*gorgonia.Node, error) {
	return b.Forward(x, train, !s.noTrack)
}

// bnReLU is ReLU(BN(x)), fused in training mode (BatchNorm.ForwardReLU).
func (s *netState) bnReLU(b *BatchNorm, x *gorgonia.Node, train bool) (*gorgonia.Node, error) {
	return b.ForwardReLU(x, train, !s.noTrack)
}

// constTensor returns a dense tensor of the given shape filled with c.
func constTensor(dt tensor.Dtype, shape tensor.Shape, c float64) *tensor.Dense {
	n := shape.TotalSize()
	if dt == tensor.Float64 {
		v := make([]float64, n)
		for i := range v {
			v[i] = c
		}
		return tensor.New(tensor.WithShape(shape.Clone()...), tensor.WithBacking(v))
	}
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(c)
	}
	return tensor.New(tensor.WithShape(shape.Clone()...), tensor.WithBacking(v))
}

func scalarConst(dt tensor.Dtype, c float64) *gorgonia.Node {
	if dt == tensor.Float64 {
		return gorgonia.NewConstant(c)
	}
	return gorgonia.NewConstant(float32(c))
}

// BatchNorm is batch normalization (Ioffe & Szegedy 2015) over the channel
// axis of N×C×H×W or N×C inputs: y = (x − μ)/√(σ² + ε)·γ + β with the
// batch's mean and biased variance in training and the running averages in
// evaluation. Gamma is nil for a shift-only layer (TensorFlow's batch_norm
// default, used by the LLP-GAN generator). Parameters and running
// statistics have shape 1×C×1×1 (4-D) or 1×C (2-D) so they broadcast
// without a reshape.
//
// gorgonia note: Reshape returns a view, and the tape machine may let an
// element-wise op overwrite a view in place while its source is still live
// (this corrupted γ in a first version). Every reduction here is therefore a
// matrix product with a constant vector, and only fresh matrix-product
// results are reshaped.
type BatchNorm struct {
	Gamma, Beta     *gorgonia.Node
	RunMean, RunVar *gorgonia.Node
	Momentum, Eps   float64
	C, Dims         int

	g       *gorgonia.ExprGraph
	dt      tensor.Dtype
	records []*bnRecord
}

type bnRecord struct {
	mean, variance    gorgonia.Value
	readMean, readVar *gorgonia.Node
	count             int
	// roots, when set, replaces readMean and readVar as the nodes whose
	// run fills mean and variance (the fused op's output, batchNormFused).
	roots gorgonia.Nodes
}

func newBatchNorm(g *gorgonia.ExprGraph, dt tensor.Dtype, name string, channels, dims int, momentum float64, scale bool) *BatchNorm {
	b := &BatchNorm{Momentum: momentum, Eps: 1e-5, C: channels, Dims: dims, g: g, dt: dt}
	shape := tensor.Shape{1, channels}
	if dims == 4 {
		shape = tensor.Shape{1, channels, 1, 1}
	}
	if scale {
		b.Gamma = NewConstLearnable(g, dt, name+".gamma", shape, 1)
	}
	b.Beta = NewConstLearnable(g, dt, name+".beta", shape, 0)
	b.RunMean = gorgonia.NewTensor(g, dt, shape.Dims(), gorgonia.WithShape(shape...), gorgonia.WithName(name+".running_mean"), gorgonia.WithValue(constTensor(dt, shape, 0)))
	b.RunVar = gorgonia.NewTensor(g, dt, shape.Dims(), gorgonia.WithShape(shape...), gorgonia.WithName(name+".running_var"), gorgonia.WithValue(constTensor(dt, shape, 1)))
	return b
}

// Learnables returns γ (when present) and β.
func (b *BatchNorm) Learnables() gorgonia.Nodes {
	if b.Gamma == nil {
		return gorgonia.Nodes{b.Beta}
	}
	return gorgonia.Nodes{b.Gamma, b.Beta}
}

// Forward normalizes x. In training mode with track set, the batch
// statistics are recorded for UpdateRunningStats.
func (b *BatchNorm) Forward(x *gorgonia.Node, train, track bool) (*gorgonia.Node, error) {
	s := x.Shape()
	if s.Dims() != b.Dims || s[1] != b.C {
		return nil, fmt.Errorf("batch norm: input shape %v, want %d dimensions with %d channels", s, b.Dims, b.C)
	}
	pattern := []byte{0}
	if b.Dims == 4 {
		pattern = []byte{0, 2, 3}
	}
	if b.Gamma != nil && fusedBatchNorm {
		if !train {
			return b.batchNormEvalFused(x, false)
		}
		return b.batchNormFused(x, false, track)
	}
	eps := scalarConst(b.dt, b.Eps)
	if !train {
		// y = x·scale + shift, scale = γ/√(r_σ² + ε), shift = β − r_μ·scale.
		ve, err := gorgonia.Add(b.RunVar, eps)
		if err != nil {
			return nil, err
		}
		scale, err := invSqrt(ve)
		if err != nil {
			return nil, err
		}
		if b.Gamma != nil {
			if scale, err = gorgonia.HadamardProd(scale, b.Gamma); err != nil {
				return nil, err
			}
		}
		ms, err := gorgonia.HadamardProd(b.RunMean, scale)
		if err != nil {
			return nil, err
		}
		shift, err := gorgonia.Sub(b.Beta, ms)
		if err != nil {
			return nil, err
		}
		y, err := gorgonia.BroadcastHadamardProd(x, scale, nil, pattern)
		if err != nil {
			return nil, err
		}
		return gorgonia.BroadcastAdd(y, shift, nil, pattern)
	}
	mean, err := b.channelMean(x)
	if err != nil {
		return nil, err
	}
	xc, err := gorgonia.BroadcastSub(x, mean, nil, pattern)
	if err != nil {
		return nil, err
	}
	sq, err := gorgonia.Square(xc)
	if err != nil {
		return nil, err
	}
	variance, err := b.channelMean(sq)
	if err != nil {
		return nil, err
	}
	ve, err := gorgonia.Add(variance, eps)
	if err != nil {
		return nil, err
	}
	scale, err := invSqrt(ve)
	if err != nil {
		return nil, err
	}
	if track {
		rec := &bnRecord{count: s.TotalSize() / s[1]}
		rec.readMean = gorgonia.Read(mean, &rec.mean)
		rec.readVar = gorgonia.Read(variance, &rec.variance)
		b.records = append(b.records, rec)
	}
	if b.Gamma != nil {
		if scale, err = gorgonia.HadamardProd(scale, b.Gamma); err != nil {
			return nil, err
		}
	}
	y, err := gorgonia.BroadcastHadamardProd(xc, scale, nil, pattern)
	if err != nil {
		return nil, err
	}
	return gorgonia.BroadcastAdd(y, b.Beta, nil, pattern)
}

// ForwardReLU returns ReLU(Forward(x, train, track)); in training mode
// with γ it is one fused op (batchNormFused), which keeps one tensor for
// the backward pass instead of the normalisation's and the ReLU's.
func (b *BatchNorm) ForwardReLU(x *gorgonia.Node, train, track bool) (*gorgonia.Node, error) {
	s := x.Shape()
	if s.Dims() != b.Dims || s[1] != b.C {
		return nil, fmt.Errorf("batch norm: input shape %v, want %d dimensions with %d channels", s, b.Dims, b.C)
	}
	if b.Gamma != nil && fusedBatchNorm {
		if !train {
			return b.batchNormEvalFused(x, true)
		}
		return b.batchNormFused(x, true, track)
	}
	y, err := b.Forward(x, train, track)
	if err != nil {
		return nil, err
	}
	return gorgonia.Rectify(y)
}

// channelMean averages x over every axis but the channel's and returns it
// in the parameter shape (1×C×1×1 or 1×C): (1/N)·1ᵀ·X over the batch, then,
// for images, the C×(H·W) result times (1/HW)·1 over the pixels.
func (b *BatchNorm) channelMean(x *gorgonia.Node) (*gorgonia.Node, error) {
	s := x.Shape()
	n, c := s[0], s[1]
	hw := s.TotalSize() / (n * c)
	flat := x
	var err error
	if b.Dims == 4 {
		if flat, err = gorgonia.Reshape(x, tensor.Shape{n, c * hw}); err != nil {
			return nil, err
		}
	}
	rowAvg := constMatrixNode(b.g, b.dt, "batch-average", 1, n, fill(n, 1/float64(n)))
	m, err := gorgonia.Mul(rowAvg, flat) // 1×(C·HW)
	if err != nil {
		return nil, err
	}
	if b.Dims == 2 {
		return m, nil
	}
	if m, err = gorgonia.Reshape(m, tensor.Shape{c, hw}); err != nil {
		return nil, err
	}
	colAvg := constMatrixNode(b.g, b.dt, "pixel-average", hw, 1, fill(hw, 1/float64(hw)))
	if m, err = gorgonia.Mul(m, colAvg); err != nil { // C×1
		return nil, err
	}
	return gorgonia.Reshape(m, tensor.Shape{1, c, 1, 1})
}

// invSqrt returns 1/√x as Inverse(Sqrt(x)): gorgonia's InverseSqrt op has a
// wrong symbolic gradient in v0.9.18 (found by TestBatchNormGradient).
func invSqrt(x *gorgonia.Node) (*gorgonia.Node, error) {
	r, err := gorgonia.Sqrt(x)
	if err != nil {
		return nil, err
	}
	return gorgonia.Inverse(r)
}

func fill(n int, v float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// update folds each recorded batch (in Forward order) into the running
// averages; records whose Read has not run since the last update are
// skipped.
func (b *BatchNorm) update() error {
	rm, rv := b.RunMean.Value().Data(), b.RunVar.Value().Data()
	for i, r := range b.records {
		if r.mean == nil || r.variance == nil {
			continue
		}
		mom := b.Momentum
		unbias := 1.0
		if r.count > 1 {
			unbias = float64(r.count) / float64(r.count-1)
		}
		switch m := r.mean.Data().(type) {
		case []float32:
			v := r.variance.Data().([]float32)
			RM, RV := rm.([]float32), rv.([]float32)
			if len(m) != len(RM) {
				return fmt.Errorf("batch norm record %d: %d means for %d channels", i, len(m), len(RM))
			}
			for c := range RM {
				RM[c] = float32((1-mom)*float64(RM[c]) + mom*float64(m[c]))
				RV[c] = float32((1-mom)*float64(RV[c]) + mom*float64(v[c])*unbias)
			}
		case []float64:
			v := r.variance.Data().([]float64)
			RM, RV := rm.([]float64), rv.([]float64)
			if len(m) != len(RM) {
				return fmt.Errorf("batch norm record %d: %d means for %d channels", i, len(m), len(RM))
			}
			for c := range RM {
				RM[c] = (1-mom)*RM[c] + mom*m[c]
				RV[c] = (1-mom)*RV[c] + mom*v[c]*unbias
			}
		}
		// Forget the folded batch: the next run's Read fills fresh values,
		// and a record whose machine does not run again is not folded twice.
		r.mean, r.variance = nil, nil
	}
	return nil
}

// globalAvgPool averages N×C×H×W over H and W, giving N×C: the
// (N·C)×(H·W) matrix times the constant vector (1/HW)·1.
func globalAvgPool(x *gorgonia.Node, dt tensor.Dtype) (*gorgonia.Node, error) {
	s := x.Shape()
	if s.Dims() != 4 {
		return nil, fmt.Errorf("global average pool: input shape %v, want N×C×H×W", s)
	}
	hw := s[2] * s[3]
	flat, err := gorgonia.Reshape(x, tensor.Shape{s[0] * s[1], hw})
	if err != nil {
		return nil, err
	}
	avg := constMatrixNode(x.Graph(), dt, "pixel-average", hw, 1, fill(hw, 1/float64(hw)))
	m, err := gorgonia.Mul(flat, avg)
	if err != nil {
		return nil, err
	}
	return gorgonia.Reshape(m, tensor.Shape{s[0], s[1]})
}

// adaptiveAvgPool is torch.nn.AdaptiveAvgPool2d((oh, ow)) on N×C×H×W:
// output cell (i, j) averages input rows ⌊iH/oh⌋ … ⌈(i+1)H/oh⌉−1 and columns
// likewise. It is a fixed linear map, applied as (N·C)×(H·W) times a
// constant (H·W)×(oh·ow) matrix; for a 1×1 input it copies the value into
// every cell (VGG16 on 32×32 images).
func adaptiveAvgPool(x *gorgonia.Node, dt tensor.Dtype, oh, ow int) (*gorgonia.Node, error) {
	s := x.Shape()
	if s.Dims() != 4 {
		return nil, fmt.Errorf("adaptive average pool: input shape %v, want N×C×H×W", s)
	}
	n, c, h, w := s[0], s[1], s[2], s[3]
	p := make([]float64, h*w*oh*ow)
	for i := 0; i < oh; i++ {
		r0, r1 := i*h/oh, ((i+1)*h+oh-1)/oh
		for j := 0; j < ow; j++ {
			c0, c1 := j*w/ow, ((j+1)*w+ow-1)/ow
			inv := 1 / float64((r1-r0)*(c1-c0))
			for r := r0; r < r1; r++ {
				for q := c0; q < c1; q++ {
					p[(r*w+q)*oh*ow+i*ow+j] = inv
				}
			}
		}
	}
	pm := constMatrixNode(x.Graph(), dt, "adaptive-pool", h*w, oh*ow, p)
	flat, err := gorgonia.Reshape(x, tensor.Shape{n * c, h * w})
	if err != nil {
		return nil, err
	}
	y, err := gorgonia.Mul(flat, pm)
	if err != nil {
		return nil, err
	}
	return gorgonia.Reshape(y, tensor.Shape{n, c, oh, ow})
}

// constMatrixNode adds a non-trainable rows×cols matrix with the given
// row-major values.
func constMatrixNode(g *gorgonia.ExprGraph, dt tensor.Dtype, name string, rows, cols int, v []float64) *gorgonia.Node {
	var t *tensor.Dense
	if dt == tensor.Float64 {
		t = tensor.New(tensor.WithShape(rows, cols), tensor.WithBacking(append([]float64(nil), v...)))
	} else {
		f := make([]float32, len(v))
		for i, x := range v {
			f[i] = float32(x)
		}
		t = tensor.New(tensor.WithShape(rows, cols), tensor.WithBacking(f))
	}
	return gorgonia.NewMatrix(g, dt, gorgonia.WithShape(rows, cols), gorgonia.WithName(fmt.Sprintf("%s-%dx%d", name, rows, cols)), gorgonia.WithValue(t))
}

// specDType returns the element type of a spec's graph.
func specDType(spec ModelSpec) tensor.Dtype { return spec.DType() }

// ---------------------------------------------------------------------------
// ResNet-18

// ResNet18 is the ResNet-18 of He et al. (2016) exactly as the authors'
// code builds it (models/ResNet.py, a copy of torchvision's resnet18 with a
// configurable number of input channels): the ImageNet stem — 7×7 stride-2
// convolution without bias, batch norm, ReLU, 3×3 stride-2 max-pool with
// padding 1 — is kept for 32×32 and 28×28 inputs (it is NOT the 3×3-stem
// "CIFAR ResNet-18" of later papers), followed by four stages of two
// BasicBlocks (64, 128, 256, 512 channels; stride 2 and a 1×1 convolution
// plus batch norm on the shortcut when the shape changes), global average
// pooling and a linear layer. Appendix `suppsec: exp`, "ResNet18".
type ResNet18 struct {
	netState
	spec   ModelSpec
	stem   *Conv
	stemBN *BatchNorm
	blocks []*basicBlock
	fc     *Dense
	params gorgonia.Nodes
}

type basicBlock struct {
	conv1, conv2 *Conv
	bn1, bn2     *BatchNorm
	down         *Conv
	downBN       *BatchNorm
}

func init() {
	RegisterModel(ModelResNet18, func(g *gorgonia.ExprGraph, spec ModelSpec, rng *rand.Rand) (Model, error) {
		return NewResNet18(g, spec, rng)
	})
}

// NewResNet18 builds ResNet-18 for spec's images in g (parameters from rng
// in layer order).
func NewResNet18(g *gorgonia.ExprGraph, spec ModelSpec, rng *rand.Rand) (*ResNet18, error) {
	if !spec.IsImage() {
		return nil, fmt.Errorf("resnet18: spec %q has no image shape (Channels, Height, Width)", spec.Name)
	}
	dt := specDType(spec)
	m := &ResNet18{netState: netState{g: g, dt: dt}, spec: spec}
	m.stem = NewConvInit(g, dt, "resnet18.conv1", spec.Channels, 64, 7, 3, 2, false, InitKaimingFanOut, rng)
	m.stemBN = m.newBatchNorm("resnet18.bn1", 64, 4, 0.1, true)
	m.params = append(m.params, m.stem.Learnables()...)
	m.params = append(m.params, m.stemBN.Learnables()...)
	in := 64
	for stage, planes := range []int{64, 128, 256, 512} {
		for i := 0; i < 2; i++ {
			stride := 1
			if stage > 0 && i == 0 {
				stride = 2
			}
			name := fmt.Sprintf("resnet18.layer%d.%d", stage+1, i)
			b := &basicBlock{
				conv1: NewConvInit(g, dt, name+".conv1", in, planes, 3, 1, stride, false, InitKaimingFanOut, rng),
			}
			b.bn1 = m.newBatchNorm(name+".bn1", planes, 4, 0.1, true)
			b.conv2 = NewConvInit(g, dt, name+".conv2", planes, planes, 3, 1, 1, false, InitKaimingFanOut, rng)
			b.bn2 = m.newBatchNorm(name+".bn2", planes, 4, 0.1, true)
			m.params = append(m.params, b.conv1.Learnables()...)
			m.params = append(m.params, b.bn1.Learnables()...)
			m.params = append(m.params, b.conv2.Learnables()...)
			m.params = append(m.params, b.bn2.Learnables()...)
			if stride != 1 || in != planes {
				b.down = NewConvInit(g, dt, name+".downsample.0", in, planes, 1, 0, stride, false, InitKaimingFanOut, rng)
				b.downBN = m.newBatchNorm(name+".downsample.1", planes, 4, 0.1, true)
				m.params = append(m.params, b.down.Learnables()...)
				m.params = append(m.params, b.downBN.Learnables()...)
			}
			m.blocks = append(m.blocks, b)
			in = planes
		}
	}
	m.fc = NewDense(g, dt, "resnet18.fc", 512, spec.NumClasses, rng)
	m.params = append(m.params, m.fc.Learnables()...)
	return m, nil
}

// Name returns "resnet18".
func (m *ResNet18) Name() string { return ModelResNet18 }

// Learnables returns the trainable parameters in layer order.
func (m *ResNet18) Learnables() gorgonia.Nodes { return m.params }

// Forward returns the logits of x.
func (m *ResNet18) Forward(x *gorgonia.Node, train bool) (*gorgonia.Node, error) {
	x, err := asImage(x, m.spec)
	if err != nil {
		return nil, err
	}
	h, err := m.stem.Forward(x)
	if err != nil {
		return nil, fmt.Errorf("resnet18 stem: %w", err)
	}
	if h, err = m.bn(m.stemBN, h, train); err != nil {
		return nil, err
	}
	if h, err = gorgonia.Rectify(h); err != nil {
		return nil, err
	}
	if h, err = gorgonia.MaxPool2D(h, tensor.Shape{3, 3}, []int{1, 1}, []int{2, 2}); err != nil {
		return nil, fmt.Errorf("resnet18 max-pool: %w", err)
	}
	for i, b := range m.blocks {
		if h, err = m.block(b, h, train); err != nil {
			return nil, fmt.Errorf("resnet18 block %d: %w", i, err)
		}
	}
	if h, err = globalAvgPool(h, m.dt); err != nil {
		return nil, err
	}
	return m.fc.Forward(h)
}

func (m *ResNet18) block(b *basicBlock, x *gorgonia.Node, train bool) (*gorgonia.Node, error) {
	h, err := b.conv1.Forward(x)
	if err != nil {
		return nil, err
	}
	if h, err = m.bn(b.bn1, h, train); err != nil {
		return nil, err
	}
	if h, err = gorgonia.Rectify(h); err != nil {
		return nil, err
	}
	if h, err = b.conv2.Forward(h); err != nil {
		return nil, err
	}
	if h, err = m.bn(b.bn2, h, train); err != nil {
		return nil, err
	}
	id := x
	if b.down != nil {
		if id, err = b.down.Forward(x); err != nil {
			return nil, err
		}
		if id, err = m.bn(b.downBN, id, train); err != nil {
			return nil, err
		}
	}
	if h, err = gorgonia.Add(h, id); err != nil {
		return nil, err
	}
	return gorgonia.Rectify(h)
}
