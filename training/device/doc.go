// Package device is the seam between the training code and the hardware
// it runs on: the interface a compute back end implements —
// compile a part of a gorgonia graph into a Program, set its inputs, run
// it, read its outputs, release it — with gradient storage (Grads) and an
// optimizer (Optimizer) that live where the back end computes, so that on
// a GPU a training step uploads the minibatch and downloads the loss and
// little else.
//
// Back ends register themselves by name (Register) and a run opens one from
// its Config.Device string (Open): "cpu" (training/device/cpu: gorgonia's
// tape machine with the project's fused operations, the default) or
// "opencl[:P:D]" (training/device/opencl). A back end that cannot run an
// operation says so when the program is compiled, before any training,
// with a *MissingOpError naming the operation's kind (OpKind); the kinds
// every training graph uses are pinned per model × method by
// TestOpListGolden (training/testdata/ops.golden), the list a new back end
// must implement.
//
// As gomlx keeps its backends/ apart from its layers and trainer, and
// gorgonia its ops apart from its VMs: training/nn, training/models and
// training/loss build graphs and know nothing of devices beyond this
// interface; the methods in training run every graph through it
// (TestMethodsRunOnTheDevice).
//
// Imports: training/optim (the optimizer's configuration and state) and
// gorgonia. Imported by training/loss, training and the back ends.
package device
