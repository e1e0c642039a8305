package methods

import (
	"fmt"
	"math/rand/v2"

	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/loss"
	"github.com/llpfc/llpfc/training/nn"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// fcGraph is the graph of the weighted FC loss of a minibatch of B
// instances, shared by the LLPFC methods and the supervised ceiling: the
// inputs x, R (row i: the row of T̂ of instance i's noisy label) and w (the
// instances' weights), FCLoss, its gradients and the tape that runs them.
type fcGraph struct {
	x, r, w    *gorgonia.Node
	xT, rT, wT *tensor.Dense
	loss       *gorgonia.Node
	grads      gorgonia.Nodes
	prog       device.Program
	aug        *nn.Augmentation // the input's augmentation (nil: none)
}

// With authors set, the loss is FCLossClamped (the authors' loss_f).
func newFCGraph(env *Env, prefix string, authors bool) (*fcGraph, error) {
	g, spec := env.Graph, env.Spec
	dt, B, C := spec.DType(), env.Config.BatchSize, spec.NumClasses
	f := &fcGraph{}
	f.x, f.xT = nn.NewInputNode(g, dt, prefix+".x", spec.InputShape(B))
	f.r, f.rT = nn.NewInputNode(g, dt, prefix+".R", tensor.Shape{B, C})
	f.w, f.wT = nn.NewInputNode(g, dt, prefix+".w", tensor.Shape{B})
	var err error
	if f.aug, err = nn.NewAugmentation(env.Config.Augment); err != nil {
		return nil, err
	}
	xa, err := f.aug.Input(f.x)
	if err != nil {
		return nil, err
	}
	z, err := env.Model.Forward(xa, true)
	if err != nil {
		return nil, err
	}
	fc := loss.FCLoss
	if authors {
		fc = loss.FCLossClamped
	}
	if f.loss, err = fc(z, f.r, f.w); err != nil {
		return nil, err
	}
	if f.grads, err = nn.Grad(f.loss, env.Model.Learnables()...); err != nil {
		return nil, err
	}
	roots := append(gorgonia.Nodes{f.loss}, f.grads...)
	opts := device.Options{Name: prefix + " step", Params: env.Model.Learnables(), Inputs: nn.Inputs(env.Model, f.x, f.r, f.w), RunningOnDevice: true}
	if bn, ok := env.Model.(nn.BatchNormModel); ok {
		opts.Effects = bn.RunningStatRoots()
	}
	if f.prog, err = env.Backend.Compile(g, roots, opts); err != nil {
		return nil, err
	}
	return f, nil
}

// Close releases the graph's program.
func (f *fcGraph) Close() { f.prog.Close() }

// ReleaseBuffers drops the values of the program's last run.
func (f *fcGraph) ReleaseBuffers() { f.prog.Release() }

// run trains on the inputs already filled for the minibatch's n real rows
// (the rest zero): the augmentation's key (one draw of augRNG; the
// augmentation runs in the program), dropout masks, forward and backward, the
// batch-norm running statistics; it adds the gradients to grads and
// returns the loss — or, on a back end whose device runs ahead
// (device.Deferred), tallies the loss there and returns 0, so that the
// step does not wait for the device.
func (f *fcGraph) run(env *Env, n int, augRNG, dropRNG *rand.Rand, grads device.Grads) (float64, error) {
	f.aug.Step(augRNG)
	if sm, ok := env.Model.(nn.StochasticModel); ok {
		sm.Resample(dropRNG)
	}
	if err := f.prog.Run(); err != nil {
		return 0, err
	}
	if bn, ok := env.Model.(nn.BatchNormModel); ok {
		if err := bn.UpdateRunningStats(); err != nil {
			return 0, fmt.Errorf("batch-norm statistics: %w", err)
		}
	}
	if d, ok := grads.(device.Deferred); ok {
		if err := d.AddLoss(f.prog, f.loss); err != nil {
			return 0, err
		}
		return 0, grads.Add(f.prog, f.grads, 1)
	}
	lv, err := f.prog.Value(f.loss)
	if err != nil {
		return 0, err
	}
	loss, err := nn.ScalarOf(lv)
	if err != nil {
		return 0, err
	}
	return loss, grads.Add(f.prog, f.grads, 1)
}
