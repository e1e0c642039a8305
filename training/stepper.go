package training

import (
	"fmt"
	"math"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/models"
	"github.com/llpfc/llpfc/training/nn"
	"gorgonia.org/gorgonia"
)

// stepper is what Train and RunStepBenchmark share: the compute back end,
// one graph holding the model and the method's loss, the gradients on the
// back end and float32 views of the parameters' Go values (current on the
// host after backend.Pull).
type stepper struct {
	backend device.Backend
	graph   *gorgonia.ExprGraph
	model   nn.Model
	method  Method
	learn   gorgonia.Nodes
	params  [][]float32 // views of the learnables' Go values
	grads   device.Grads
}

// newStepper opens cfg.Device, builds the model of spec and the loss of
// cfg.Method on one new graph, and compiles the method's programs. The
// caller closes the stepper.
func newStepper(cfg *Config, data *TrainData, spec nn.ModelSpec) (*stepper, error) {
	methodsMu.RLock()
	factory, ok := methods[cfg.Method]
	methodsMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("method %q: unknown (known: %v)", cfg.Method, MethodNames())
	}
	be, err := device.Open(cfg.Device)
	if err != nil { // a back end this machine cannot open: the run's input
		return nil, &InputError{err}
	}
	st, err := buildStepper(be, factory, cfg, data, spec)
	if err != nil {
		be.Close()
		return nil, err
	}
	return st, nil
}

func buildStepper(be device.Backend, factory MethodFactory, cfg *Config, data *TrainData, spec nn.ModelSpec) (*stepper, error) {
	g := gorgonia.NewGraph()
	model, err := models.NewModel(g, spec, rng.New(cfg.Seed, "init"))
	if err != nil {
		return nil, &InputError{err} // the architecture cannot take the data's inputs
	}
	st := &stepper{backend: be, graph: g, model: model, learn: model.Learnables()}
	for _, p := range st.learn {
		d, ok := p.Value().Data().([]float32)
		if !ok {
			return nil, fmt.Errorf("model %s: parameter %s is not float32", spec.Name, p.Name())
		}
		st.params = append(st.params, d)
	}
	if err := be.Push(st.learn...); err != nil {
		return nil, err
	}
	if st.grads, err = be.NewGrads(st.learn); err != nil {
		return nil, err
	}
	if st.method, err = factory(&MethodEnv{Config: cfg, Data: data, Spec: spec, Graph: g, Model: model, Backend: be}); err != nil {
		return nil, fmt.Errorf("method %s: %w", cfg.Method, err)
	}
	return st, nil
}

// Close releases the method's programs and the back end.
func (st *stepper) Close() {
	st.method.Close()
	st.backend.Close()
}

// step computes minibatch s's gradient with the method and applies it: the
// loss and the gradient are checked for NaN and ±Inf before the parameters
// change.
func (st *stepper) step(s int, opt device.Optimizer, lr float64) (float64, int, error) {
	if err := st.grads.Reset(); err != nil {
		return 0, 0, err
	}
	loss, n, err := st.method.Step(s, st.grads)
	if err != nil {
		return loss, n, err
	}
	if nonFinite(loss) {
		return loss, n, fmt.Errorf("%w; stopped before updating the parameters", &NonFiniteError{What: "loss", Value: loss})
	}
	i, j, v, bad, err := st.grads.NonFinite()
	if err != nil {
		return loss, n, err
	}
	if bad {
		return loss, n, fmt.Errorf("%w; stopped before updating the parameters", &NonFiniteError{What: fmt.Sprintf("gradient of %s[%d]", st.learn[i].Name(), j), Value: v})
	}
	return loss, n, opt.Step(lr)
}

// nonFinite reports whether v is NaN or ±Inf.
func nonFinite(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }
