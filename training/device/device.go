package device

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/llpfc/llpfc/training/optim"
	"gorgonia.org/gorgonia"
)

// Backend is a compute device that runs the training graphs: the CPU (the
// default, package training/device/cpu) or an OpenCL device
// (training/device/opencl). One Backend serves one training run: every
// Program it compiles shares the run's parameters, which it keeps where it
// computes (on a GPU, in device memory).
//
// What lives where. The graphs are gorgonia graphs built by training/models
// and training/loss. Each node without an operation is one of:
//   - a parameter (a learnable): the Backend holds it for the run; Push
//     copies the node's Go value to the device after the host changed it
//     (initialization, a checkpoint restored) and Pull copies it back
//     (checkpoints, results);
//   - an input (Options.Inputs): copied from its Go value before every Run
//     (the minibatch, T̂'s rows, weights, batch-norm running statistics;
//     dropout masks are computed where the program runs, nn.Dropout);
//   - a constant (everything else: averaging matrices, scalars): copied
//     once, when the Program is compiled.
type Backend interface {
	// Name is the name the back end registered under (cpu, opencl) with the
	// device it runs on, for results and messages.
	Name() string
	// Compile prepares the part of g that computes outs. It fails with a
	// *MissingOpError, before anything runs, when an operation of that part
	// is one the back end cannot run.
	Compile(g *gorgonia.ExprGraph, outs gorgonia.Nodes, opts Options) (Program, error)
	// NewGrads makes gradient storage for params (one buffer per
	// parameter, in order), on the device.
	NewGrads(params gorgonia.Nodes) (Grads, error)
	// NewOptimizer makes cfg's optimizer over params, stepping with the
	// gradients in grads; its state lives on the device.
	NewOptimizer(cfg optim.Config, params gorgonia.Nodes, grads Grads) (Optimizer, error)
	// Push copies the Go values of parameter nodes to the device; Pull
	// copies the device's values into the nodes' Go values.
	Push(nodes ...*gorgonia.Node) error
	Pull(nodes ...*gorgonia.Node) error
	// Close releases the device's memory; the Backend cannot be used after.
	Close() error
}

// Options configure a compiled Program.
type Options struct {
	// Name says what the program computes ("llpfc step", "evaluation"), for
	// messages.
	Name string
	// Params are the parameters the program reads (the model's
	// learnables); the back end keeps them on the device.
	Params gorgonia.Nodes
	// Inputs are the nodes without an operation whose Go values the caller
	// changes between runs; the back end copies them before every Run.
	// Nodes without an operation that are neither Params nor Inputs are
	// constants.
	Inputs gorgonia.Nodes
	// RunningOnDevice: the program's tracked batch-norm layers fold their
	// statistics into their running averages where the program runs (no
	// chunked sweep ever sets their statistics), so a back end with a
	// device may keep the averages there (StateHolder); the CPU ignores it.
	RunningOnDevice bool
	// Effects are nodes the program runs for what their operations record
	// (a training pass's batch-norm statistics:
	// nn.BatchNormModel.RunningStatRoots), not for their values: a back end
	// need not keep those (on the CPU every batch-norm output of a
	// step stayed pinned as an output, 314 MB of WRN-16-4's at batch 128).
	Effects gorgonia.Nodes
}

// Roots returns the nodes a program compiled for outs with opts computes:
// the outputs, then the effects.
func Roots(outs gorgonia.Nodes, opts Options) gorgonia.Nodes {
	return append(append(gorgonia.Nodes(nil), outs...), opts.Effects...)
}

// Program is a compiled part of a graph.
type Program interface {
	// Run executes the program once on the current inputs and parameters.
	Run() error
	// Value returns the value of n after the last Run: an output the
	// program was compiled for (on the CPU, any node it computes). The
	// value is the caller's to read until the next Run or Release.
	Value(n *gorgonia.Node) (gorgonia.Value, error)
	// Ops returns the kinds of the operations the program runs (OpKind),
	// sorted and without repeats.
	Ops() []string
	// Release drops the values of the last run (activations, gradients):
	// the next Run allocates afresh.
	Release()
	// Close releases the program.
	Close() error
}

// Grads holds the gradient of a loss with respect to each parameter of a
// model, on the device, for one minibatch: methods add the gradient
// outputs of their programs into it and the optimizer steps with it.
type Grads interface {
	// Reset zeroes the gradients (the start of a minibatch).
	Reset() error
	// Add adds scale times the values of nodes, outputs of p's last run
	// (one per parameter, in order), to the gradients.
	Add(p Program, nodes gorgonia.Nodes, scale float64) error
	// NonFinite reports the first parameter and index whose gradient is NaN
	// or ±Inf, and that value.
	NonFinite() (param, index int, value float64, bad bool, err error)
	// Read copies the gradients into dst (one slice per parameter) for
	// tests and diagnostics.
	Read(dst [][]float64) error
}

// Optimizer updates parameters on the device (optim.Optimizer's rules).
type Optimizer interface {
	// Step applies one update with learning rate lr and the current
	// gradients.
	Step(lr float64) error
	// State returns the optimizer's state (checkpoints); SetState restores
	// it.
	State() (optim.State, error)
	SetState(optim.State) error
}

// MissingOpError reports an operation a back end cannot run, found when a
// graph is compiled (before any training).
type MissingOpError struct {
	Backend, Program string
	// Op is the operation's kind (OpKind) and Node the node that uses it.
	Op, Node string
}

func (e *MissingOpError) Error() string {
	return fmt.Sprintf("device %s: operation %s (node %s of the %s program) is not implemented on this device", e.Backend, e.Op, e.Node, e.Program)
}

// Factory opens a back end; spec is what follows the back end's name in a
// device string ("" for "cpu", "1:0" for "opencl:1:0").
type Factory func(spec string) (Backend, error)

var (
	registryMu sync.RWMutex
	registry   = map[string]Factory{}
)

// Register makes a back end available to Open by name (each back end
// registers itself in init). Registering a name twice panics.
func Register(name string, f Factory) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if _, dup := registry[name]; dup {
		panic("device: back end " + name + " registered twice")
	}
	registry[name] = f
}

// Names returns the registered back ends' names, sorted.
func Names() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	var ns []string
	for n := range registry {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

// DefaultName is the back end of an empty device string.
const DefaultName = "cpu"

// ErrUnknown is wrapped by Open's error for a back end nobody registered.
var ErrUnknown = errors.New("unknown device")

// Open opens the back end a device string names: "cpu" (or ""), or
// "NAME:SPEC" such as "opencl:0:1" (platform 0, device 1).
func Open(device string) (Backend, error) {
	name, spec, _ := strings.Cut(device, ":")
	if name == "" {
		name = DefaultName
	}
	registryMu.RLock()
	f, ok := registry[name]
	registryMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("device %q: %w (known: %s)", device, ErrUnknown, strings.Join(Names(), ", "))
	}
	return f(spec)
}

// ParseName checks a device string's back-end name without opening it.
func ParseName(device string) error {
	name, _, _ := strings.Cut(device, ":")
	if name == "" {
		return nil
	}
	registryMu.RLock()
	_, ok := registry[name]
	registryMu.RUnlock()
	if !ok {
		return fmt.Errorf("device %q: %w (known: %s)", device, ErrUnknown, strings.Join(Names(), ", "))
	}
	return nil
}
