package nn

import (
	"fmt"
	"math/rand/v2"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// StochasticModel is implemented by models whose training forward pass
// draws random numbers (dropout masks). gorgonia's own Dropout seeds itself
// from the clock; these models instead key their masks by a number
// Resample draws from the caller's stream, so the same seed gives the same
// run. A loop must call Resample before every run of a tape that contains a
// training-mode Forward; until the first Resample every mask keeps all units.
type StochasticModel interface {
	Model
	Resample(rng *rand.Rand)
	// Masks returns the mask nodes Resample refills, inputs of every
	// program that runs a training-mode Forward (device.Options.Inputs):
	// none for the models of training/models, whose masks are computed
	// where the program runs (Dropout).
	Masks() gorgonia.Nodes
}

// Inputs returns nodes followed by m's dropout masks when m is a
// StochasticModel: the inputs of a program that runs m's training-mode
// Forward on nodes (device.Options.Inputs).
func Inputs(m Model, nodes ...*gorgonia.Node) gorgonia.Nodes {
	out := append(gorgonia.Nodes(nil), nodes...)
	if sm, ok := m.(StochasticModel); ok {
		out = append(out, sm.Masks()...)
	}
	return out
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
	// Tracked counts the batches Update has folded into the running
	// averages in this process (PyTorch's num_batches_tracked; it is not
	// checkpointed, and no layer here reads it).
	Tracked int64

	g       *gorgonia.ExprGraph
	dt      tensor.Dtype
	records []*bnRecord
}

type bnRecord struct {
	mean, variance gorgonia.Value
	// device, when set, holds the recorded statistics instead of mean and
	// variance (a fused op kept on a device, BNDevice.FoldRecord).
	device            BNDevice
	readMean, readVar *gorgonia.Node
	count             int
	// roots, when set, replaces readMean and readVar as the nodes whose
	// run fills mean and variance (the fused op's output, batchNormFused).
	roots gorgonia.Nodes
}

// RecordRoots returns the nodes whose runs record the batch statistics of
// the layer's tracked training-mode passes (BatchNormModel.RunningStatRoots).
func (b *BatchNorm) RecordRoots() gorgonia.Nodes {
	var ns gorgonia.Nodes
	for _, r := range b.records {
		if r.roots != nil {
			ns = append(ns, r.roots...)
			continue
		}
		ns = append(ns, r.readMean, r.readVar)
	}
	return ns
}

// NewBatchNorm adds a batch-norm layer over channels channels of dims-D
// inputs (4: N×C×H×W, 2: N×C) with running-average momentum momentum; scale
// false gives a shift-only layer (Gamma nil).
func NewBatchNorm(g *gorgonia.ExprGraph, dt tensor.Dtype, name string, channels, dims int, momentum float64, scale bool) *BatchNorm {
	b := &BatchNorm{Momentum: momentum, Eps: 1e-5, C: channels, Dims: dims, g: g, dt: dt}
	shape := tensor.Shape{1, channels}
	if dims == 4 {
		shape = tensor.Shape{1, channels, 1, 1}
	}
	if scale {
		b.Gamma = NewConstLearnable(g, dt, name+".gamma", shape, 1)
	}
	b.Beta = NewConstLearnable(g, dt, name+".beta", shape, 0)
	b.RunMean = gorgonia.NewTensor(g, dt, shape.Dims(), gorgonia.WithShape(shape...), gorgonia.WithName(name+".running_mean"), gorgonia.WithValue(ConstTensor(dt, shape, 0)))
	b.RunVar = gorgonia.NewTensor(g, dt, shape.Dims(), gorgonia.WithShape(shape...), gorgonia.WithName(name+".running_var"), gorgonia.WithValue(ConstTensor(dt, shape, 1)))
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
	if b.Gamma != nil && FusedBatchNorm {
		if !train {
			return b.batchNormEvalFused(x, false)
		}
		return b.batchNormFused(x, false, track)
	}
	eps := ScalarConst(b.dt, b.Eps)
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
	if b.Gamma != nil && FusedBatchNorm {
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
	rowAvg := ConstMatrixNode(b.g, b.dt, "batch-average", 1, n, Fill(n, 1/float64(n)))
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
	colAvg := ConstMatrixNode(b.g, b.dt, "pixel-average", hw, 1, Fill(hw, 1/float64(hw)))
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

// Update folds each recorded batch (in Forward order) into the running
// averages; records whose Read has not run since the last update are
// skipped.
func (b *BatchNorm) Update() error {
	rm, rv := b.RunMean.Value().Data(), b.RunVar.Value().Data()
	for i, r := range b.records {
		if r.device != nil {
			if err := r.device.FoldRecord(b.Momentum, r.count); err != nil {
				return fmt.Errorf("batch norm record %d: %w", i, err)
			}
			r.device = nil
			b.Tracked++
			continue
		}
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
		b.Tracked++
	}
	return nil
}

// GlobalAvgPool averages N×C×H×W over H and W, giving N×C: the
// (N·C)×(H·W) matrix times the constant vector (1/HW)·1.
func GlobalAvgPool(x *gorgonia.Node, dt tensor.Dtype) (*gorgonia.Node, error) {
	s := x.Shape()
	if s.Dims() != 4 {
		return nil, fmt.Errorf("global average pool: input shape %v, want N×C×H×W", s)
	}
	hw := s[2] * s[3]
	flat, err := gorgonia.Reshape(x, tensor.Shape{s[0] * s[1], hw})
	if err != nil {
		return nil, err
	}
	avg := ConstMatrixNode(x.Graph(), dt, "pixel-average", hw, 1, Fill(hw, 1/float64(hw)))
	m, err := gorgonia.Mul(flat, avg)
	if err != nil {
		return nil, err
	}
	return gorgonia.Reshape(m, tensor.Shape{s[0], s[1]})
}

// AdaptiveAvgPool is torch.nn.AdaptiveAvgPool2d((oh, ow)) on N×C×H×W:
// output cell (i, j) averages input rows ⌊iH/oh⌋ … ⌈(i+1)H/oh⌉−1 and columns
// likewise. It is a fixed linear map, applied as (N·C)×(H·W) times a
// constant (H·W)×(oh·ow) matrix; for a 1×1 input it copies the value into
// every cell (VGG16 on 32×32 images).
func AdaptiveAvgPool(x *gorgonia.Node, dt tensor.Dtype, oh, ow int) (*gorgonia.Node, error) {
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
	pm := ConstMatrixNode(x.Graph(), dt, "adaptive-pool", h*w, oh*ow, p)
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
