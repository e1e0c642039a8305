package learn

import (
	"fmt"

	"github.com/llpfc/llpfc/experiments"
	"github.com/llpfc/llpfc/experiments/data"
	"github.com/llpfc/llpfc/training"
	"github.com/llpfc/llpfc/training/methods"
)

// Sizes checked before allocation (a LIBSVM file whose largest feature
// index was 16,777,215 once passed the loader's check, then
// `train` died of "out of memory" building a 16.7M×512 first layer). Every
// model and every buffer a run allocates in one piece is compared with
// MemoryBudget before it is allocated; a larger one is an error naming the
// input that made it (exit status 2).

// MemoryFraction is the share of the memory available at start-up that any
// one model (its parameters with their gradients and the optimizer's state)
// or buffer (the data, one forward pass's widest activation) may take.
const MemoryFraction = 0.5

// MemoryBudget returns MemoryFraction of the memory available when the
// process started (data.AvailableMemory). Tests may replace it.
var MemoryBudget = func() int64 { return int64(MemoryFraction * float64(data.AvailableMemory())) }

// budgetText describes MemoryBudget for messages.
func budgetText() string {
	return fmt.Sprintf("%s (%.0f%% of the memory available)", fmtBytes(float64(MemoryBudget())), 100*MemoryFraction)
}

// fmtBytes formats a size in GiB or MiB.
func fmtBytes(b float64) string {
	if b >= 1<<30 {
		return fmt.Sprintf("%.3g GiB", b/(1<<30))
	}
	return fmt.Sprintf("%.3g MiB", b/(1<<20))
}

// SizeError is a model or a buffer larger than MemoryBudget.
type SizeError struct {
	// What says what is too large and what made it so.
	What        string
	Need, Limit float64
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("%s need %s, more than %s; nothing was allocated", e.What, fmtBytes(e.Need), budgetText())
}

// fixedParams are the parameter counts of the networks whose size does not
// depend on the input's height and width (global or adaptive pooling), on
// 3×32×32 inputs with 10 classes; the input's channels and the classes
// change them by a few thousand.
var fixedParams = map[string]float64{
	training.ModelWRN164:   2748890,
	training.ModelResNet18: 11181642,
	training.ModelVGG16:    134309962,
	training.ModelLLPGAND:  781642,
}

// ParamEstimate returns the number of trainable parameters of model on
// inputs of shape s: exact for the networks whose size depends on the
// input (mlp: D·512+512 + 512·256+256 + 256·C+C; cnn and cnn-bn:
// 64·⌊H/4⌋⌊W/4⌋ inputs to a layer of 128; linear: (D+1)·C), fixedParams for
// the others.
func ParamEstimate(model string, s DataShape) float64 {
	d, k := float64(s.Dim()), float64(s.Classes)
	switch model {
	case training.ModelMLP:
		return d*512 + 512 + 512*256 + 256 + 256*k + k
	case training.ModelCNN, training.ModelCNNBN:
		flat := 64 * float64(s.Height/4) * float64(s.Width/4)
		return 32*float64(s.Channels)*9 + 32 + 64*32*9 + 64 + flat*128 + 128 + 128*k + k + 192
	case "linear":
		return (d + 1) * k
	}
	return fixedParams[model]
}

// activationPerInstance returns the number of values of the widest
// activation of one instance's forward pass: the first layer's output (the
// mlp's 512 units; a convolutional network's first convolution, at full
// resolution: 32 channels for cnn, 64 for the others, on vgg16's input
// resized to at least 32×32), or the input when it is wider.
func activationPerInstance(model string, s DataShape) float64 {
	d := float64(s.Dim())
	hw := float64(s.Height) * float64(s.Width)
	switch model {
	case training.ModelMLP:
		return max(d, 512)
	case "linear":
		return d + float64(s.Classes)
	case training.ModelCNN, training.ModelCNNBN:
		return max(d, 32*hw)
	case training.ModelVGG16:
		h, w := InputSide(model, s.Height, s.Width)
		return 64 * float64(h) * float64(w)
	}
	return max(d, 64*hw)
}

// CheckModelSize returns a *SizeError when model on inputs of shape s is
// larger than MemoryBudget: its parameters with their gradients and the
// optimizer's two moments (4 copies; float32, and float64 for the linear
// model of the logreg learner), or the widest activation of a forward pass
// of perPass instances. input names what made the inputs (a data set, a
// flag).
func CheckModelSize(model string, s DataShape, perPass int, input string) error {
	width := 4.0
	if model == "linear" {
		width = 8
	}
	limit := float64(MemoryBudget())
	if p := ParamEstimate(model, s); 4*width*p > limit {
		return &SizeError{What: fmt.Sprintf("model %s on the %s of %s: %.3g parameters with their gradients and the optimizer's state",
			model, inputText(s), input, p), Need: 4 * width * p, Limit: limit}
	}
	if a := float64(perPass) * activationPerInstance(model, s); width*a > limit {
		return &SizeError{What: fmt.Sprintf("model %s on the %s of %s: a forward pass of %d instances holds %.3g values in one layer, which",
			model, inputText(s), input, perPass, a), Need: width * a, Limit: limit}
	}
	return nil
}

// inputText describes the inputs of shape s.
func inputText(s DataShape) string {
	if s.Channels > 0 {
		return fmt.Sprintf("%d×%d×%d images", s.Channels, s.Height, s.Width)
	}
	return fmt.Sprintf("%d features", s.Features)
}

// CheckSize checks the sizes of cell c on data of shape s against
// MemoryBudget: the data set held in memory (both splits, float32), and the
// model (CheckModelSize) with the instances of its largest forward pass —
// the minibatch for LLPFC and the supervised ceiling, a chunk of the
// minibatch's bags for kl and llpvat, the minibatch's bags for llpgan, and
// never fewer than the evaluation batch.
func CheckSize(c experiments.Config, s DataShape) error {
	if need := 4 * float64(s.Train+s.Test) * float64(s.Dim()); need > float64(MemoryBudget()) {
		return &SizeError{What: fmt.Sprintf("data set %s: %d instances × %d values (float32)", c.Dataset, s.Train+s.Test, s.Dim()),
			Need: need, Limit: float64(MemoryBudget())}
	}
	return CheckModelSize(c.Model, s, instancesPerPass(c), "data set "+c.Dataset)
}

// instancesPerPass is the number of instances of cell c's largest forward
// pass (see CheckSize).
func instancesPerPass(c experiments.Config) int {
	h := c.Hyper
	n := h.BatchSize
	switch {
	case experiments.Is(c.Method, methods.FamilyAdversarial): // every bag of the minibatch in one pass
		n = h.BatchSize * c.BagSize
	case !experiments.CountsInstances(c.Method):
		chunk := h.ChunkSize
		if chunk == 0 {
			chunk = training.DefaultChunkSize
		}
		n = min(h.BatchSize*c.BagSize, chunk)
	}
	return max(n, training.DefaultEvalBatch)
}

// MinInputSide returns the smallest image height and width model takes: 4
// for cnn and cnn-bn (two 2×2 pools), 32 for vgg16 (five 2×2 pools; the
// learner resizes smaller images, InputSide, but `llpfc bench` feeds them
// as they are), 1 for the others (padded convolutions and global pooling).
func MinInputSide(model string) int {
	switch model {
	case training.ModelCNN, training.ModelCNNBN:
		return 4
	case training.ModelVGG16:
		return vggMinSide
	}
	return 1
}
