package methods

import (
	"fmt"
	"math/rand/v2"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/loss"
	"github.com/llpfc/llpfc/training/nn"
	"gorgonia.org/gorgonia"
)

// Method is a training objective (LLPFC, KL, LLP-VAT, LLPGAN, EasyLLP,
// MixBag, LLP-PVC): it owns its
// inputs and loss nodes in the model's graph and computes minibatch
// gradients; the trainer owns the parameters, optimizer, schedule,
// evaluation and checkpoints.
type Method interface {
	// BeginEpoch prepares epoch e (0-based): regrouping, shuffling. It
	// returns the number of optimizer steps of the epoch. Everything random
	// must come from Env.Stream(name, e) (or a stream keyed by a
	// function of e), so that a run resumed at epoch e repeats the draws of
	// the uninterrupted run.
	BeginEpoch(e int) (steps int, err error)
	// Step adds the gradient of minibatch s of the current epoch with
	// respect to the model's Learnables to grads (which the trainer has
	// reset) and returns the minibatch loss and the number of training
	// instances used. It runs its graphs as programs compiled on
	// Env.Backend (device.Backend.Compile), never with a gorgonia
	// machine of its own (TestMethodsRunOnTheDevice).
	Step(s int, grads device.Grads) (loss float64, images int, err error)
	// Close releases the method's programs.
	Close()
}

// StatefulMethod is a Method with state of its own (for example LLPGAN's
// generator and its optimizer) that checkpoints must carry.
type StatefulMethod interface {
	Method
	SaveState() ([]byte, error)
	LoadState([]byte) error
}

// Env is what a method's Factory gets: the run's configuration and data,
// the model on its graph and the back end its programs compile on.
type Env struct {
	Config *Config
	Data   *TrainData
	// Spec is the model spec completed with the data's input size and C.
	Spec  nn.ModelSpec
	Graph *gorgonia.ExprGraph
	Model nn.Model
	// Backend is the run's compute back end: the method compiles its
	// programs on it, with the model's Learnables as Params.
	Backend device.Backend
}

// Stream returns the random stream name for epoch e:
// internal/rng.New(seed, name+"/epoch-"+e). Streams keyed by epoch have no
// position to save: a run resumed at epoch e draws what the uninterrupted
// run drew.
func (env *Env) Stream(name string, e int) *rand.Rand {
	return rng.New(env.Config.Seed, fmt.Sprintf("%s/epoch-%d", name, e))
}

// Factory builds a method in env.Graph.
type Factory func(env *Env) (Method, error)

// GroupingReporter is a Method that partitions bags into groups (the LLPFC
// methods); Train records its Regroupings in Result.
type GroupingReporter interface {
	// Regroupings returns the diagnostics of every regrouping of a run of
	// epochs epochs, in epoch order. They are recomputed from the run's
	// streams, so a resumed run reports the same list as an uninterrupted one.
	Regroupings(epochs int) ([]Regrouping, error)
}

// ObjectiveDiagnoser is a Method whose objective counts what explains a
// collapse (loss.BagDiagnostics: LLP-PVC's terms below its numerics'
// floor, EasyLLP's flooded steps and soft labels, …): ok is
// false when its objective counts nothing.
type ObjectiveDiagnoser interface {
	ObjectiveDiagnostics() (d loss.BagDiagnostics, ok bool)
}

// BufferReleaser is implemented by methods whose programs can drop the
// values of their last run (device.Program.Release); Train calls it before
// each evaluation, so that the step's and the evaluator's activations are
// never resident together (bench/NOTES.md, "The 5.2 GB of a real WRN-16-4
// training run").
type BufferReleaser interface {
	ReleaseBuffers()
}
