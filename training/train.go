package training

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/device/cpu"
	"github.com/llpfc/llpfc/training/methods"
	"github.com/llpfc/llpfc/training/models"
	"github.com/llpfc/llpfc/training/nn"
	"gorgonia.org/tensor"
)

// Train trains cfg.Method on data and evaluates on its test split. The
// graph is built once with fixed batch shapes and compiled on cfg.Device's
// back end (training/device; the CPU by default); the last partial
// minibatch is padded with zero-weight rows. Training is float32. A
// non-finite loss or gradient stops training with an error naming the epoch
// and step before it reaches the parameters.
func Train(ctx context.Context, cfg Config, data *TrainData, progress Progress) (*Result, error) {
	start := time.Now()
	cfg, spec, err := prepare(cfg, data)
	if err != nil {
		return nil, err
	}
	if cfg.KeepModel {
		if err := models.CanExport(spec.Name); err != nil {
			return nil, &InputError{err}
		}
	}
	all := data
	data, val, err := splitValidation(cfg, data)
	if err != nil {
		return nil, &InputError{err}
	}
	st, err := newStepper(&cfg, data, spec)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	r := &trainRun{cfg: cfg, spec: spec, data: data, all: all, val: val, st: st, progress: progress,
		res: &Result{ParamCount: nn.ParamCount(st.model), Device: st.backend.Name(), Numerics: numerics(st.backend)}}
	for _, b := range val {
		r.res.ValBagIDs = append(r.res.ValBagIDs, b.ID)
	}
	if r.ev, err = newEvaluator(st.backend, st.graph, st.model, spec, cfg.EvalBatch); err != nil {
		return nil, err
	}
	if d, ok := methods.Lookup(cfg.Method); ok {
		r.ev.link = d.Output
	}
	defer r.ev.Close()
	if r.buffers, err = runningStats(st.model); err != nil {
		return nil, err
	}
	if r.opt, err = st.backend.NewOptimizer(cfg.Optimizer, st.learn, st.grads); err != nil {
		return nil, err
	}
	if err := checkDeviceMemory(st.backend); err != nil {
		return nil, err
	}
	if err := r.resume(); err != nil {
		return nil, err
	}
	for e := r.first; r.more(e); e++ {
		if err := r.epoch(ctx, e); err != nil {
			return nil, err
		}
	}
	if err := r.finish(ctx); err != nil {
		return nil, err
	}
	r.res.WallSeconds = time.Since(start).Seconds()
	return r.res, nil
}

// checkDeviceMemory refuses, before the first step, a run that does not
// fit its device's memory (device.MemoryChecker): the run's input, as a
// model too large for the host's memory is.
func checkDeviceMemory(be device.Backend) error {
	mc, ok := be.(device.MemoryChecker)
	if !ok {
		return nil
	}
	if err := mc.CheckMemory(); err != nil {
		return &InputError{err}
	}
	return nil
}

// prepare validates the data and the configuration (an InputError) and
// completes the model spec from the data.
func prepare(cfg Config, data *TrainData) (Config, nn.ModelSpec, error) {
	if err := data.Validate(); err != nil {
		return cfg, nn.ModelSpec{}, &InputError{err}
	}
	cfg, err := withDefaults(cfg)
	if err != nil {
		return cfg, nn.ModelSpec{}, &InputError{err}
	}
	spec := cfg.Model
	spec.Channels, spec.Height, spec.Width, spec.Features = data.Channels, data.Height, data.Width, data.Features
	if data.Channels > 0 && data.Height > 0 && data.Width > 0 {
		spec.Features = 0
	}
	spec.NumClasses = data.Bags.NumClasses
	spec.Dtype = tensor.Float32
	if err := spec.Validate(); err != nil {
		return cfg, spec, &InputError{err}
	}
	return cfg, spec, nil
}

// runningStats returns float32 views of a BatchNormModel's running
// statistics (nil for other models): checkpointed model state.
func runningStats(m nn.Model) ([][]float32, error) {
	bn, ok := m.(nn.BatchNormModel)
	if !ok {
		return nil, nil
	}
	var out [][]float32
	for _, n := range bn.RunningStats() {
		d, ok := n.Value().Data().([]float32)
		if !ok {
			return nil, fmt.Errorf("model %s: running statistic %s is not float32", m.Name(), n.Name())
		}
		out = append(out, d)
	}
	return out, nil
}

// trainRun is one call of Train: its stepper, evaluator and optimizer, the
// checkpoint fields, and the result so far.
type trainRun struct {
	cfg      Config
	spec     nn.ModelSpec
	data     *TrainData       // the bags trained on
	all      *TrainData       // every bag given (data and val)
	val      []estimators.Bag // the held-out bags (Config.ValBags)
	best     *Snapshot        // best-val: the lowest validation KL so far
	st       *stepper
	ev       *evaluator
	opt      device.Optimizer
	buffers  [][]float32 // running statistics (host values)
	fields   map[string]string
	progress Progress
	res      *Result

	lastProbs   []float64 // the test probabilities of the last evaluation
	first       int       // the first epoch this call trains
	stepsDone   int       // the optimizer steps of the epochs trained so far (Config.Steps)
	trainImages int
	trainTime   time.Duration
}

// resume restores cfg.Checkpoint when cfg.Resume is set and it exists.
func (r *trainRun) resume() error {
	cfg := r.cfg
	if cfg.Checkpoint != "" {
		r.fields = runFields(cfg, r.all)
	}
	if !cfg.Resume || cfg.Checkpoint == "" {
		return nil
	}
	if _, statErr := os.Stat(cfg.Checkpoint); statErr != nil {
		return nil
	}
	ck, err := ReadCheckpoint(cfg.Checkpoint)
	if err != nil {
		return err
	}
	if err := ck.restore(cfg, r.fields, r.st.params, r.buffers, r.opt, r.st.method); err != nil {
		return fmt.Errorf("checkpoint %s: %w", cfg.Checkpoint, err)
	}
	if err := r.st.push(); err != nil {
		return err
	}
	r.first = ck.NextEpoch
	r.res.History = ck.History
	r.best = ck.Best
	for _, h := range ck.History {
		r.stepsDone += h.Steps
	}
	if cfg.Steps > 0 {
		r.cfg.Epochs = ck.NextEpoch // the passes so far; epoch extends it while steps remain
	}
	return nil
}

// more reports whether epoch e is trained: while e < Epochs, or, with a
// step budget (Config.Steps), while steps remain.
func (r *trainRun) more(e int) bool {
	if r.cfg.Steps > 0 {
		return r.stepsDone < r.cfg.Steps
	}
	return e < r.cfg.Epochs
}

// budget cuts epoch e's steps to what remains of a step budget
// (Config.Steps) and sets Epochs to the passes the budget takes at this
// epoch's pace (exact once the last epoch begins), so that the last epoch is
// known as the last (its evaluation, its checkpoint); without a budget it
// returns steps unchanged.
func (r *trainRun) budget(e, steps int) int {
	left := r.cfg.Steps - r.stepsDone
	if r.cfg.Steps == 0 {
		return steps
	}
	if steps >= left {
		r.cfg.Epochs = e + 1
		return left
	}
	r.cfg.Epochs = e + 1 + (left-steps+steps-1)/steps
	return steps
}

// epoch trains epoch e, evaluates it when due and checkpoints it.
func (r *trainRun) epoch(ctx context.Context, e int) error {
	cfg, method := r.cfg, r.st.method
	lr := cfg.Schedule.LR(cfg.Optimizer.LR, e)
	steps, err := method.BeginEpoch(e)
	if err != nil {
		return fmt.Errorf("epoch %d: %w", e+1, err) // counted from 1, as the progress lines count
	}
	if steps < 1 {
		return fmt.Errorf("epoch %d: method %s has no minibatch (batch size %d)", e+1, cfg.Method, cfg.BatchSize)
	}
	steps = r.budget(e, steps)
	cfg = r.cfg
	if err := r.st.beginEpoch(e); err != nil {
		return err
	}
	epochStart := time.Now()
	lastReport := epochStart
	var images int
	for s := 0; s < steps; s++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, err := r.st.step(s, r.opt, lr)
		if err != nil {
			return fmt.Errorf("epoch %d step %d: %w", e+1, s+1, err)
		}
		images += n
		if r.progress != nil && time.Since(lastReport) >= time.Second && s+1 < steps {
			lossSum, err := r.st.lossSum()
			if err != nil {
				return err
			}
			lastReport = time.Now()
			r.progress(progressAt(e, s+1, steps, cfg.Epochs, r.first, lossSum, images, lr, epochStart, r.trainTime, r.trainImages))
		}
	}
	lossSum, err := r.st.lossSum()
	if err != nil {
		return err
	}
	r.stepsDone += steps
	dt := time.Since(epochStart)
	r.trainTime += dt
	r.trainImages += images
	st := EpochStats{Epoch: e, Loss: lossSum / float64(steps), LR: lr, Seconds: dt.Seconds(), Steps: steps, Images: images, TestAccuracy: -1}
	last := e == cfg.Epochs-1
	if len(r.data.TestY) > 0 && (last || (cfg.EvalEvery > 0 && (e+1)%cfg.EvalEvery == 0)) {
		if rel, ok := method.(methods.BufferReleaser); ok {
			rel.ReleaseBuffers() // the step's activations are not needed while evaluating
		}
		acc, probs, err := r.ev.evaluate(ctx, r.data.TestX, r.data.TestY)
		if err != nil {
			if ctx.Err() != nil && cfg.Checkpoint != "" {
				// Interrupted while evaluating: keep the epoch just trained
				// (its accuracy unknown); a resume evaluates it.
				if werr := r.save(e+1, append(r.res.History, st)); werr != nil {
					return werr
				}
			}
			return fmt.Errorf("epoch %d: evaluation: %w", e+1, err)
		}
		st.TestAccuracy, r.lastProbs = acc, probs
	}
	if err := r.validate(ctx, e, &st); err != nil {
		return err
	}
	r.res.History = append(r.res.History, st)
	if r.progress != nil {
		ev := progressAt(e, steps, steps, cfg.Epochs, r.first, lossSum, images, lr, epochStart, r.trainTime-dt, r.trainImages-images)
		ev.EpochDone, ev.TestAccuracy = true, st.TestAccuracy
		r.progress(ev)
	}
	if cfg.Checkpoint != "" && (last || (e+1-r.first)%cfg.CheckpointEvery == 0) {
		return r.save(e+1, r.res.History)
	}
	return nil
}

// save writes the state after epoch next−1 to cfg.Checkpoint.
func (r *trainRun) save(next int, hist []EpochStats) error {
	if err := r.st.pull(); err != nil {
		return err
	}
	ck, err := newCheckpoint(r.fields, next, r.st.params, r.buffers, r.opt, hist)
	if err != nil {
		return err
	}
	ck.Best = r.best
	if sm, ok := r.st.method.(StatefulMethod); ok {
		if ck.MethodState, err = sm.SaveState(); err != nil {
			return fmt.Errorf("epoch %d: method state: %w", next, err)
		}
	}
	return ck.Write(r.cfg.Checkpoint)
}

// finish completes the result: regroupings, the last epoch's loss and
// accuracy (evaluating the restored state when nothing was left to train),
// throughput and the final parameters.
func (r *trainRun) finish(ctx context.Context) error {
	res, cfg := r.res, r.cfg
	res.Epochs = cfg.Epochs
	var err error
	if gr, ok := r.st.method.(GroupingReporter); ok {
		if res.Regroupings, err = gr.Regroupings(cfg.Epochs); err != nil {
			return err
		}
	}
	if od, ok := r.st.method.(methods.ObjectiveDiagnoser); ok {
		if d, ok := od.ObjectiveDiagnostics(); ok {
			res.Objective = &d
		}
	}
	if n := len(res.History); n > 0 {
		res.FinalLoss = res.History[n-1].Loss
		res.TestAccuracy = res.History[n-1].TestAccuracy
	}
	res.SelectedEpoch = cfg.Epochs - 1
	if err := r.restoreBest(); err != nil {
		return err
	}
	switch {
	case len(r.data.TestY) == 0: // no test split (a bag-only set without one)
		res.TestAccuracy, r.lastProbs = -1, nil
	case res.TestAccuracy < 0 || r.first >= cfg.Epochs || r.lastProbs == nil: // nothing left to train, or another epoch selected: evaluate
		if res.TestAccuracy, r.lastProbs, err = r.ev.evaluate(ctx, r.data.TestX, r.data.TestY); err != nil {
			return err
		}
	}
	res.TestProbs = r.lastProbs
	if res.BagProportionError, err = r.ev.bagProportionError(ctx, r.data.X, r.data.Bags.Bags); err != nil {
		return err
	}
	if r.trainTime > 0 {
		res.TrainImagesPerSecond = float64(r.trainImages) / r.trainTime.Seconds()
	}
	if err := r.st.pull(); err != nil {
		return err
	}
	res.Params = make([][]float32, len(r.st.params))
	for i, p := range r.st.params {
		res.Params[i] = append([]float32(nil), p...)
	}
	if cfg.KeepModel {
		state, err := models.StateDict(r.st.model)
		if err != nil {
			return err
		}
		res.Model = &SavedModel{Spec: r.spec, State: state}
	}
	return nil
}

func progressAt(e, s, steps, epochs, first int, lossSum float64, images int, lr float64, epochStart time.Time, prevTime time.Duration, prevImages int) ProgressEvent {
	el := time.Since(epochStart)
	ev := ProgressEvent{Epoch: e, Epochs: epochs, Step: s, Steps: steps, Loss: lossSum / float64(s), LR: lr, TestAccuracy: -1}
	if el > 0 {
		ev.ImagesPerSecond = float64(images) / el.Seconds()
	}
	// ETA: the epoch's remaining steps at its pace plus the remaining epochs
	// at the mean epoch time so far (this one extrapolated).
	perStep := el / time.Duration(s)
	epochTime := perStep * time.Duration(steps)
	if done := e - first; done > 0 {
		epochTime = (prevTime + epochTime) / time.Duration(done+1)
	}
	ev.ETA = perStep*time.Duration(steps-s) + epochTime*time.Duration(epochs-e-1)
	return ev
}

// validate scores the held-out bags after epoch e (Config.ValBags) into
// st and, for best-val selection, keeps the network when its validation
// KL is the lowest so far.
func (r *trainRun) validate(ctx context.Context, e int, st *EpochStats) error {
	if len(r.val) == 0 {
		return nil
	}
	if rel, ok := r.st.method.(methods.BufferReleaser); ok {
		rel.ReleaseBuffers()
	}
	kl, pe, err := r.ev.bagScores(ctx, r.all.X, r.val)
	if err != nil {
		return fmt.Errorf("epoch %d: validation: %w", e+1, err)
	}
	st.ValKL, st.ValPropError = &kl, &pe
	if r.cfg.Select != SelectBestVal || (r.best != nil && !(kl < r.best.ValKL)) {
		return nil
	}
	if err := r.st.pull(); err != nil {
		return err
	}
	r.best = &Snapshot{Epoch: e, ValKL: kl, Params: cloneAll(r.st.params), Buffers: cloneAll(r.buffers)}
	return nil
}

// restoreBest puts the best-val network back when an earlier epoch than
// the last was selected; the test evaluation that follows then scores it.
func (r *trainRun) restoreBest() error {
	b := r.best
	if r.cfg.Select != SelectBestVal || b == nil || b.Epoch == r.cfg.Epochs-1 {
		return nil
	}
	for i := range r.st.params {
		copy(r.st.params[i], b.Params[i])
	}
	for i := range r.buffers {
		copy(r.buffers[i], b.Buffers[i])
	}
	r.res.SelectedEpoch, r.res.TestAccuracy, r.lastProbs = b.Epoch, -1, nil
	return r.st.push()
}

// cloneAll copies every slice of s.
func cloneAll(s [][]float32) [][]float32 {
	out := make([][]float32, len(s))
	for i, v := range s {
		out[i] = append([]float32(nil), v...)
	}
	return out
}

// numerics is nn.Numerics for the CPU back end, what another back end
// names (device.NumericsNamer: the OpenCL back end's kernel variants), or
// empty.
func numerics(be device.Backend) string {
	if be.Name() == cpu.Name {
		return nn.Numerics()
	}
	if n, ok := be.(device.NumericsNamer); ok {
		return n.Numerics()
	}
	return ""
}
