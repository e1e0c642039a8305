package models

import (
	"fmt"
	"math/rand/v2"

	"github.com/llpfc/llpfc/training/nn"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// This file holds ResNet-18 and the layers with out-of-graph state that the
// convolutional models of Appendix `suppsec: exp` share (wrn.go, vgg.go,
// llpgan*.go): batch normalization with running statistics, dropout with
// masks drawn from an explicit random stream, global and adaptive average
// pooling, and the two optional interfaces a training loop uses to drive
// them (StochasticModel, BatchNormModel).

// netState is the out-of-graph state of a model: its dropout key and
// layers and its batch-norm layers. Models embed it to implement
// StochasticModel and BatchNormModel.
type netState struct {
	g  *gorgonia.ExprGraph
	dt tensor.Dtype
	// drop is the key of the model's dropout masks (nn.Dropout), drops
	// the number of dropout layers built so far (each training-mode
	// Forward builds its own, as each PyTorch forward draws fresh masks).
	drop    *nn.DropoutKey
	drops   int
	bns     []*nn.BatchNorm
	noTrack bool
}

// Resample sets the key of every dropout mask built so far from one
// 64-bit draw of rng: each unit is then kept with probability 1−p and
// scaled by 1/(1−p) (inverted dropout, as torch.nn.Dropout), the masks
// computed where the program runs from the key, the layer and the unit
// (nn.Dropout). The caller's stream is the run's, drawn once a step, so
// the masks are a function of (seed, step, layer, unit).
func (s *netState) Resample(rng *rand.Rand) {
	if s.drop != nil {
		s.drop.Set(rng.Uint64())
	}
}

// dropout returns nn.Dropout of x in training mode with p > 0 and x
// unchanged otherwise.
func (s *netState) dropout(x *gorgonia.Node, p float64, train bool) (*gorgonia.Node, error) {
	if !train || p == 0 {
		return x, nil
	}
	if p < 0 || p >= 1 {
		return nil, fmt.Errorf("dropout probability %v, want in [0, 1)", p)
	}
	if s.drop == nil {
		s.drop = nn.NewDropoutKey()
	}
	y, err := nn.Dropout(x, p, s.drop, s.drops)
	if err != nil {
		return nil, err
	}
	s.drops++
	return y, nil
}

// Masks returns no node: the masks are computed where the program runs
// (nn.Dropout), not held in inputs.
func (s *netState) Masks() gorgonia.Nodes { return nil }

// SetTrackRunningStats switches the recording of batch statistics by later
// training-mode Forward calls on or off.
func (s *netState) SetTrackRunningStats(on bool) { s.noTrack = !on }

// UpdateRunningStats folds the batch statistics recorded by the last run of
// the tape into the running averages.
func (s *netState) UpdateRunningStats() error {
	for _, b := range s.bns {
		if err := b.Update(); err != nil {
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
		ns = append(ns, b.RecordRoots()...)
	}
	return ns
}

func (s *netState) newBatchNorm(name string, channels, dims int, momentum float64, scale bool) *nn.BatchNorm {
	b := nn.NewBatchNorm(s.g, s.dt, name, channels, dims, momentum, scale)
	s.bns = append(s.bns, b)
	return b
}

func (s *netState) bn(b *nn.BatchNorm, x *gorgonia.Node, train bool) (*gorgonia.Node, error) {
	return b.Forward(x, train, !s.noTrack)
}

// bnReLU is ReLU(BN(x)), fused in training mode (BatchNorm.ForwardReLU).
func (s *netState) bnReLU(b *nn.BatchNorm, x *gorgonia.Node, train bool) (*gorgonia.Node, error) {
	return b.ForwardReLU(x, train, !s.noTrack)
}

// specDType returns the element type of a spec's graph.
func specDType(spec nn.ModelSpec) tensor.Dtype { return spec.DType() }

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
	spec   nn.ModelSpec
	stem   *nn.Conv
	stemBN *nn.BatchNorm
	blocks []*basicBlock
	fc     *nn.Dense
	params gorgonia.Nodes
}

type basicBlock struct {
	conv1, conv2 *nn.Conv
	bn1, bn2     *nn.BatchNorm
	down         *nn.Conv
	downBN       *nn.BatchNorm
}

func init() {
	RegisterModel(ModelResNet18, func(g *gorgonia.ExprGraph, spec nn.ModelSpec, rng *rand.Rand) (nn.Model, error) {
		return NewResNet18(g, spec, rng)
	})
}

// NewResNet18 builds ResNet-18 for spec's images in g (parameters from rng
// in layer order).
func NewResNet18(g *gorgonia.ExprGraph, spec nn.ModelSpec, rng *rand.Rand) (*ResNet18, error) {
	if !spec.IsImage() {
		return nil, fmt.Errorf("resnet18: spec %q has no image shape (Channels, Height, Width)", spec.Name)
	}
	dt := specDType(spec)
	m := &ResNet18{netState: netState{g: g, dt: dt}, spec: spec}
	m.stem = nn.NewConvInit(g, dt, "resnet18.conv1", spec.Channels, 64, 7, 3, 2, false, nn.InitKaimingFanOut, rng)
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
				conv1: nn.NewConvInit(g, dt, name+".conv1", in, planes, 3, 1, stride, false, nn.InitKaimingFanOut, rng),
			}
			b.bn1 = m.newBatchNorm(name+".bn1", planes, 4, 0.1, true)
			b.conv2 = nn.NewConvInit(g, dt, name+".conv2", planes, planes, 3, 1, 1, false, nn.InitKaimingFanOut, rng)
			b.bn2 = m.newBatchNorm(name+".bn2", planes, 4, 0.1, true)
			m.params = append(m.params, b.conv1.Learnables()...)
			m.params = append(m.params, b.bn1.Learnables()...)
			m.params = append(m.params, b.conv2.Learnables()...)
			m.params = append(m.params, b.bn2.Learnables()...)
			if stride != 1 || in != planes {
				b.down = nn.NewConvInit(g, dt, name+".downsample.0", in, planes, 1, 0, stride, false, nn.InitKaimingFanOut, rng)
				b.downBN = m.newBatchNorm(name+".downsample.1", planes, 4, 0.1, true)
				m.params = append(m.params, b.down.Learnables()...)
				m.params = append(m.params, b.downBN.Learnables()...)
			}
			m.blocks = append(m.blocks, b)
			in = planes
		}
	}
	m.fc = nn.NewDense(g, dt, "resnet18.fc", 512, spec.NumClasses, rng)
	m.params = append(m.params, m.fc.Learnables()...)
	return m, nil
}

// Name returns "resnet18".
func (m *ResNet18) Name() string { return ModelResNet18 }

// Learnables returns the trainable parameters in layer order.
func (m *ResNet18) Learnables() gorgonia.Nodes { return m.params }

// Forward returns the logits of x.
func (m *ResNet18) Forward(x *gorgonia.Node, train bool) (*gorgonia.Node, error) {
	x, err := nn.AsImage(x, m.spec)
	if err != nil {
		return nil, err
	}
	h, err := m.stem.Forward(x)
	if err != nil {
		return nil, fmt.Errorf("resnet18 stem: %w", err)
	}
	if h, err = m.bnReLU(m.stemBN, h, train); err != nil { // fused, as VGG16's (memory: one activation, not three)
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
	if h, err = nn.GlobalAvgPool(h, m.dt); err != nil {
		return nil, err
	}
	return m.fc.Forward(h)
}

func (m *ResNet18) block(b *basicBlock, x *gorgonia.Node, train bool) (*gorgonia.Node, error) {
	h, err := b.conv1.Forward(x)
	if err != nil {
		return nil, err
	}
	if h, err = m.bnReLU(b.bn1, h, train); err != nil {
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
