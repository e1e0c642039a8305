package training

import (
	"context"
	"fmt"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/models"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Predictor runs a saved network's evaluation-mode forward pass (batch norm
// with its running statistics, no dropout) on a compute back end: what
// `llpfc predict` does with a model file.
type Predictor struct {
	spec    ModelSpec
	backend device.Backend
	ev      *evaluator
}

// NewPredictor builds sm's network on a new graph, loads its state dict and
// compiles the evaluation on device ("" means cpu) for batches of batch
// instances (0 means DefaultEvalBatch). The caller closes it.
func NewPredictor(sm *SavedModel, dev string, batch int) (*Predictor, error) {
	if sm == nil {
		return nil, fmt.Errorf("predictor: no model")
	}
	if batch == 0 {
		batch = DefaultEvalBatch
	}
	if batch < 1 {
		return nil, fmt.Errorf("predictor: batch %d, want ≥ 1", batch)
	}
	spec := sm.Spec
	spec.Dtype = tensor.Float32
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	g := gorgonia.NewGraph()
	m, err := models.NewModel(g, spec, rng.New(0, "init"))
	if err != nil {
		return nil, err
	}
	if err := models.LoadStateDict(m, sm.State); err != nil {
		return nil, err
	}
	be, err := device.Open(dev)
	if err != nil { // a back end this machine cannot open: the input's, as in training (newStepper)
		return nil, &InputError{err}
	}
	p := &Predictor{spec: spec, backend: be}
	if err := be.Push(m.Learnables()...); err != nil {
		be.Close()
		return nil, err
	}
	if p.ev, err = newEvaluator(be, g, m, spec, batch); err != nil {
		be.Close()
		return nil, err
	}
	return p, nil
}

// Close releases the evaluation program and the back end.
func (p *Predictor) Close() {
	p.ev.Close()
	p.backend.Close()
}

// Spec returns the network's spec (input shape, classes).
func (p *Predictor) Spec() ModelSpec { return p.spec }

// Probabilities returns the softmax class probabilities of every row of x
// (row-major, the network's input size per row, already normalized as in
// training), N×C row-major; the softmax is taken in float64 from the
// float32 logits.
func (p *Predictor) Probabilities(ctx context.Context, x []float32) ([]float64, error) {
	d := p.spec.InputDim()
	if len(x)%d != 0 {
		return nil, fmt.Errorf("predictor: %d values, not a whole number of rows of %d", len(x), d)
	}
	n, C := len(x)/d, p.spec.NumClasses
	out := make([]float64, n*C)
	defer p.ev.prog.Release()
	var bad error // the first instance whose probabilities are not finite
	err := p.ev.forEachBatch(ctx, x, func(start, end int, z []float32) {
		for i := start; i < end && bad == nil; i++ {
			softmaxRow(z[(i-start)*C:(i-start+1)*C], out[i*C:(i+1)*C])
			bad = finiteRow(i, out[i*C:(i+1)*C])
		}
	})
	if err == nil {
		err = bad
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}
