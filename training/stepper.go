package training

import (
	"fmt"
	"math"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/internal/stepprof"
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/methods"
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

	// The epoch's losses: hostLoss sums those read on the host; pending
	// says some step tallied its loss on the device (device.Deferred),
	// whose sum lossSum adds. tag is the next step's tag, epochTag the
	// epoch's first, epoch the epoch (to name a step the device flags).
	hostLoss      float64
	pending       bool
	tag, epochTag int
	epoch         int
}

// newStepper opens cfg.Device, builds the model of spec and the loss of
// cfg.Method on one new graph, and compiles the method's programs. The
// caller closes the stepper.
func newStepper(cfg *Config, data *TrainData, spec nn.ModelSpec) (*stepper, error) {
	d, ok := methods.Lookup(cfg.Method)
	if !ok {
		return nil, methods.UnknownError(cfg.Method)
	}
	factory := d.New
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

// beginEpoch starts epoch e's sum of losses.
func (st *stepper) beginEpoch(e int) error {
	st.epoch, st.epochTag, st.hostLoss, st.pending = e, st.tag, 0, false
	if d, ok := st.grads.(device.Deferred); ok {
		return d.ClearTally()
	}
	return nil
}

// step computes minibatch s's gradient with the method and applies it: the
// loss and the gradient are checked for NaN and ±Inf before the parameters
// change. On a back end whose device runs ahead (device.Deferred) the
// gradients, and a loss the method tallies there, are checked on the
// device and the step does not wait for it: lossSum reports a flagged
// step, and the device's optimizer leaves the parameters as they were
// before it; a loss the method computed on the host is checked at once.
func (st *stepper) step(s int, opt device.Optimizer, lr float64) (int, error) {
	reset := stepprof.Begin(RegionGradReset, 0)
	err := st.grads.Reset()
	reset.End()
	if err != nil {
		return 0, err
	}
	d, deferred := st.grads.(device.Deferred)
	if deferred {
		d.BeginStep(st.tag)
	}
	st.tag++
	host := stepprof.Begin(RegionMethodHost, 0)
	loss, n, err := st.method.Step(s, st.grads)
	host.End()
	if err != nil {
		return n, err
	}
	if nonFinite(loss) {
		return n, fmt.Errorf("%w; stopped before updating the parameters", &NonFiniteError{What: "loss", Value: loss})
	}
	if deferred {
		// The gradients, and the loss the method tallied there (AddLoss),
		// are checked on the device; the loss the method computed on the
		// host (KL's, from the chunks' outputs) is summed here.
		st.pending = true
		st.hostLoss += loss
		if err := d.Check(); err != nil {
			return n, err
		}
		return n, opt.Step(lr)
	}
	check := stepprof.Begin(RegionGradCheck, 0)
	i, j, v, bad, err := st.grads.NonFinite()
	check.End()
	if err != nil {
		return n, err
	}
	if bad {
		return n, fmt.Errorf("%w; stopped before updating the parameters", &NonFiniteError{What: fmt.Sprintf("gradient of %s[%d]", st.learn[i].Name(), j), Value: v})
	}
	st.hostLoss += loss
	return n, opt.Step(lr)
}

// The step profile's regions of a step outside its programs' operations
// (internal/stepprof; training/scaling reads them).
const (
	RegionGradReset  = "gradients: reset"
	RegionGradCheck  = "gradients: non-finite check"
	RegionMethodHost = "method: host side (minibatch, loss)"
)

// lossSum returns the sum of the losses of the epoch's steps so far. When
// the device tallied some, it waits for it once (the one blocking read of
// a step that logs), and a step the device flagged is the error the eager
// checks would have returned, naming its epoch and step.
func (st *stepper) lossSum() (float64, error) {
	if !st.pending {
		return st.hostLoss, nil
	}
	t, err := st.grads.(device.Deferred).Sync()
	if err != nil {
		return 0, err
	}
	if t.Flagged {
		what := "loss"
		if !t.Loss {
			what = fmt.Sprintf("gradient of %s[%d]", st.learn[t.Param].Name(), t.Index)
		}
		return 0, fmt.Errorf("epoch %d step %d: %w; stopped before updating the parameters", st.epoch+1, t.Tag-st.epochTag+1, &NonFiniteError{What: what, Value: t.Value}) // counted from 1
	}
	return st.hostLoss + t.LossSum, nil
}

// stateNodes are the nodes whose values are the model's state: the
// learnables, and the batch-norm running averages the back end keeps on
// its device (device.Held).
func (st *stepper) stateNodes() gorgonia.Nodes {
	ns := append(gorgonia.Nodes(nil), st.learn...)
	if bn, ok := st.model.(nn.BatchNormModel); ok {
		ns = append(ns, device.Held(st.backend, bn.RunningStats())...)
	}
	return ns
}

// pull brings the model's state to the host (before reading the Go values).
func (st *stepper) pull() error { return st.backend.Pull(st.stateNodes()...) }

// push sends the model's state to the device (after changing the Go
// values).
func (st *stepper) push() error { return st.backend.Push(st.stateNodes()...) }

// nonFinite reports whether v is NaN or ±Inf.
func nonFinite(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }
