package training

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"sync"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/device"
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
	// must come from MethodEnv.Stream(name, e) (or a stream keyed by a
	// function of e), so that a run resumed at epoch e repeats the draws of
	// the uninterrupted run.
	BeginEpoch(e int) (steps int, err error)
	// Step adds the gradient of minibatch s of the current epoch with
	// respect to the model's Learnables to grads (which the trainer has
	// reset) and returns the minibatch loss and the number of training
	// instances used. It runs its graphs as programs compiled on
	// MethodEnv.Backend (device.Backend.Compile), never with a gorgonia
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

// The built-in methods' names (issue 19: one spelling, not literals in
// several files); Supervised is in train_supervised.go.
const (
	MethodLLPFCIdeal   = "llpfc-ideal"   // Algorithm 1
	MethodLLPFCUniform = "llpfc-uniform" // Algorithm 2
	MethodLLPFCApprox  = "llpfc-approx"  // Algorithm 3
	MethodKL           = "kl"            // App. `subsec:KL`
	MethodLLPVAT       = "llpvat"        // App. "LLPVAT"
	MethodLLPGAN       = "llpgan"        // App. "LLPGAN"
	MethodEasyLLP      = "easyllp"       // EasyLLP (Busa-Fekete et al., NeurIPS 2023)
	MethodMixBag       = "mixbag"        // MixBag (Asanomi et al., ICCV 2023)
	MethodLLPPVC       = "llppvc"        // LLP-PVC (Ma et al., ICLR 2026)
)

// MethodEnv is what a method factory gets.
type MethodEnv struct {
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
func (env *MethodEnv) Stream(name string, e int) *rand.Rand {
	return rng.New(env.Config.Seed, fmt.Sprintf("%s/epoch-%d", name, e))
}

// MethodFactory builds a method in env.Graph.
type MethodFactory func(env *MethodEnv) (Method, error)

var (
	methodsMu sync.RWMutex
	methods   = map[string]MethodFactory{}
)

// RegisterMethod makes a training method available to Train by name.
func RegisterMethod(name string, f MethodFactory) {
	methodsMu.Lock()
	defer methodsMu.Unlock()
	if _, dup := methods[name]; dup {
		panic("training: method " + name + " registered twice")
	}
	methods[name] = f
}

// MethodNames returns the registered method names, sorted.
func MethodNames() []string {
	methodsMu.RLock()
	defer methodsMu.RUnlock()
	var ns []string
	for n := range methods {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}
