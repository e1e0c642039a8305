// Package opencl is the OpenCL compute back end of the device seam
// (training/device), registered as "opencl": Config.Device
// "opencl" runs on platform 0, device 0, "opencl:P:D" on platform P,
// device D (as `llpfc devices` lists them). It runs the training graphs on
// any OpenCL 1.2+ device through internal/opencl's kernel library and
// CLBlast's SGEMM, loaded without cgo; CI runs it on PoCL.
//
// # What lives on the device
//
// Parameters live in device buffers shared by every Program of a Backend
// (Push uploads the nodes' Go values, Pull downloads them); a Program's
// inputs (minibatch, T̂ rows, weights, running statistics) are uploaded
// from their Go values once per Run — dropout masks are not among them:
// the dropout kernel computes each mask from the step's key (nn.Dropout,
// Philox4x32-10), forward and backward —, its constants once at
// Compile; activations live in a pool of device buffers that Compile
// assigns by liveness (two values never live together share one) and
// Release frees. Grads are device buffers that Add fills from a program's
// outputs (a copy, a scale or an axpy); NonFinite downloads one flag.
// The Optimizer runs optim.Optimizer's rules on the device, its state
// there (State and SetState move it for checkpoints, which the CPU and
// the OpenCL back end read alike). Value downloads an output. Parameters
// pushed together, the gradients and the optimizer state are each one
// allocation (opencl.Context.AllocGroup), so the optimizer's update and
// the NaN check are one launch each.
//
// # A step that does not wait
//
// Grads implements device.Deferred: a method that hands its loss to
// AddLoss has it summed on the device, where the loss and the gradients
// are checked for NaN and ±Inf (opencl.StepFlag) and the guarded
// optimizer skips a flagged step; the trainer reads the sum and the flag
// once, when it logs. Inputs are written without blocking. Costs reports
// the context's counts (device.CostCounter); CheckMemory refuses what
// does not fit the device's memory before the first step
// (device.MemoryChecker; GlobalMemEnv lowers the limit for tests).
// fuse.go runs a dense layer's repeated bias, addition and ReLU as one
// kernel.
//
// # How a graph is compiled
//
// Compile walks device.Subgraph and maps every node's device.OpKind to its
// kernels (lower.go, bn.go); a kind it cannot run is a
// *device.MissingOpError before anything is allocated. gorgonia's op types
// are unexported, so their fields (axes, permutations, kernel geometry)
// are read by reflection, pinned to gorgonia v0.9.18 (go.mod), with an
// error naming any field that is not there; the project's fused ops export
// what a back end needs (training/nn/backend.go). Reshape aliases its
// input's buffer; gorgonia.Read delivers its value to the host after the
// run, as the tape machine does.
//
// # Batch normalization
//
// The fused training-mode batch norm keeps its statistics on the device,
// driven as its CPU Do drives them on the host: before each run the back
// end asks the op what to do (nn.BatchNormOp.NextRun: the rows behind the
// statistics, whether they fold into a BNSweep's minibatch statistics or
// the sweep's fixed ones normalize, whether the backward pass collects
// ∂L/∂μ and ∂L/∂σ² or adds the adjoints), and each op's device state
// (bn.go's bnDev, an nn.BNDevice: the sweep's statistics as float pairs,
// its partial derivatives and adjoints, a copy of the last recorded run's
// statistics, the running averages held on the device) takes the sweep's
// transitions and UpdateRunningStats' fold. So the running averages, the
// chunked KL and LLP-VAT sweeps and the evaluator behave as on the CPU and
// nothing of them crosses to the host (device.StateHolder: the trainer
// pulls the averages with the parameters). In a program compiled with
// Options.RunningOnDevice (the FC-loss methods' step) a plain run folds its
// statistics into the averages itself (opencl.Lib.BNRunningSplit).
//
// # Between programs
//
// KL's first pass reads each chunk's outputs without waiting
// (device.AsyncReader) and waits once; LLP-VAT's passes hand their values
// to each other on the device (glue.go, device.Glue: the predictions, the
// power iteration's normalized directions, the consistency loss and the
// entropy tallied), so neither step waits but for KL's outputs.
//
// # The matrix products' parameters
//
// At Open the back end applies the CLBlast parameters GEMMEnv chooses
// (gemm.go: a tuning file beside the binary, named by the device, written
// by `llpfc devices --tune-gemm` through opencl.TuneGEMM; or CLBlast's
// own), and names them in its numerics (device.NumericsNamer), which every
// result records. ConvEnv (conv.go) chooses the convolutions' path, the
// im2col products or implicit GEMM (opencl.ConvPath), named there too
// when it is not the default; ReduceEnv (reduce.go) whether the
// per-channel reductions are sliced (the default) or run one work-group a
// channel (opencl.Lib.GroupPerChannel), for the GPU kit's sweep to time
// both.
//
// # Where the time goes
//
// Backend implements device.Profiler (profile.go): between StartProfile
// and StopProfile every step of a program, the gradients' sum, the step
// checks and the optimizer's update wait for the device before and after,
// and their times, launches and work (FLOPs and bytes from the nodes'
// shapes) are summed per operation kind and geometry — what `llpfc bench
// --profile` and the GPU kit report beside PyTorch's kernels for the same
// shapes. ProfileEnv profiles a whole run and prints it at Close.
//
// Imports internal/opencl, training/device, training/nn, training/optim,
// gorgonia. Imported by training (backends.go) for its registration.
package opencl
