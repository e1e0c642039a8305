package device

import (
	"fmt"
	"strings"

	"gorgonia.org/gorgonia"
)

// What a back end whose device runs beside the host (OpenCL) offers beyond
// Backend, each an optional interface the trainer looks for:
// the counts of the work it gave its device, a step protocol without host
// waits, model state kept on the device, and a check that a run fits the
// device's memory. The CPU back end implements CostCounter only (with
// zeros: it has no device).

// Transfer is the bytes moved between the host and the device, each way.
type Transfer struct {
	HtoD int64 `json:"host_to_device"`
	DtoH int64 `json:"device_to_host"`
}

// Costs count the work a back end gave its device since it was opened and
// the host's waits for it: the costs that decide a step's speed on a GPU
// and do not depend on the GPU. Launches are the commands run on the
// device (Kernels, BLASCalls — each a call into CLBlast, which enqueues
// kernels of its own —, Copies and Fills); Reads are device-to-host
// transfers, each a blocking wait; Waits every blocking wait (reads,
// finishes); Allocs and AllocBytes the device buffers allocated;
// Transfers the bytes moved per kind of buffer ("parameter", "gradient",
// "optimizer state", "running statistics", "input", …).
type Costs struct {
	Launches   int64               `json:"launches"`
	Kernels    int64               `json:"kernels"`
	BLASCalls  int64               `json:"blas_calls"`
	Copies     int64               `json:"copies"`
	Fills      int64               `json:"fills"`
	BytesHtoD  int64               `json:"bytes_host_to_device"`
	BytesDtoH  int64               `json:"bytes_device_to_host"`
	Reads      int64               `json:"reads"`
	Waits      int64               `json:"blocking_waits"`
	Allocs     int64               `json:"allocations"`
	AllocBytes int64               `json:"device_bytes_allocated"`
	Transfers  map[string]Transfer `json:"transfers,omitempty"`
	// PeakBytes is the most device memory the back end's buffers held at
	// once since it was opened (not a count: Sub keeps c's).
	PeakBytes int64 `json:"device_peak_bytes"`
}

// Sub returns c − b (the costs of the work between two snapshots).
func (c Costs) Sub(b Costs) Costs {
	d := Costs{Launches: c.Launches - b.Launches, Kernels: c.Kernels - b.Kernels, BLASCalls: c.BLASCalls - b.BLASCalls,
		Copies: c.Copies - b.Copies, Fills: c.Fills - b.Fills, BytesHtoD: c.BytesHtoD - b.BytesHtoD, BytesDtoH: c.BytesDtoH - b.BytesDtoH,
		Reads: c.Reads - b.Reads, Waits: c.Waits - b.Waits, Allocs: c.Allocs - b.Allocs, AllocBytes: c.AllocBytes - b.AllocBytes, PeakBytes: c.PeakBytes}
	for k, t := range c.Transfers {
		if u := b.Transfers[k]; t != u {
			if d.Transfers == nil {
				d.Transfers = map[string]Transfer{}
			}
			d.Transfers[k] = Transfer{HtoD: t.HtoD - u.HtoD, DtoH: t.DtoH - u.DtoH}
		}
	}
	return d
}

// CostCounter is a back end that counts its device's work (Costs).
type CostCounter interface {
	Costs() Costs
	// CostsNote says what the counts cover on this back end.
	CostsNote() string
}

// Deferred is implemented by the Grads of a back end whose device runs
// ahead of the host. A method that hands its minibatch loss to AddLoss
// instead of reading it leaves the step's checks to the device: the loss
// is summed there, the loss and the gradients are checked for NaN and
// ±Inf there (Check), the optimizer skips its updates from a flagged step
// on, and the host learns the sum and any flagged step at Sync — one
// blocking read where every step would otherwise wait twice.
type Deferred interface {
	// BeginStep starts the step tagged tag (≥ 0, increasing); it resets
	// LossAdded.
	BeginStep(tag int)
	// AddLoss adds the scalar output loss of p's last run to the sum.
	AddLoss(p Program, loss *gorgonia.Node) error
	// LossAdded reports whether this step's method called AddLoss.
	LossAdded() bool
	// Check enqueues the check of the step's gradients.
	Check() error
	// Sync waits for the device once and returns the losses' sum since
	// ClearTally and the first flagged step, if any.
	Sync() (Tally, error)
	// ClearTally zeroes the sum (and the flag).
	ClearTally() error
}

// Tally is what Deferred.Sync returns.
type Tally struct {
	LossSum float64
	// Flagged: the step tagged Tag had a non-finite loss (Loss) or
	// gradient value Value, entry Index of parameter Param.
	Flagged      bool
	Tag          int
	Loss         bool
	Param, Index int
	Value        float64
}

// AsyncReader is a Program whose outputs can be copied to the host without
// waiting: ReadAsync enqueues the copy of output n's value after the last
// Run into dst, which holds it after Wait (not before); Wait waits for the
// device once for every copy enqueued. KL's first pass reads each chunk's
// outputs so, with one wait a minibatch.
type AsyncReader interface {
	ReadAsync(n *gorgonia.Node, dst []float32) error
	Wait() error
}

// Glue is a back end that runs on its device the few steps a method takes
// on the host between its programs — LLP-VAT's: the clean pass's
// predictions handed to the next passes, the power iteration's normalized
// directions, the consistency loss and the predictions' entropy tallied
// (Deferred) — so that values passing between programs never cross to the
// host and the step need not wait. An input set on the device is used by
// every later Run of dst, without an upload of its Go value, until
// HostInput.
type Glue interface {
	// SetInput sets input in of dst to the value of out in src after
	// src's last run (an output, or one of src's inputs).
	SetInput(dst Program, in *gorgonia.Node, src Program, out *gorgonia.Node) error
	// NormalizeRows sets input in of dst to scale times the rows (rowLen
	// values each) of src's out, each divided by its L2 norm; a row whose
	// norm is 0, NaN or ±Inf takes scale times that row of prev's input
	// prevIn instead (training/loss/vat.go's normalizeRows).
	NormalizeRows(dst Program, in *gorgonia.Node, src Program, out *gorgonia.Node, prev Program, prevIn *gorgonia.Node, rowLen int, scale float64) error
	// HostInput makes dst upload input in from its Go value again.
	HostInput(dst Program, in *gorgonia.Node)
	// TallyScaled adds scale times the scalar output loss of p's last run
	// to the step's loss sum in g (a Deferred's), flagging a non-finite one.
	TallyScaled(g Grads, p Program, loss *gorgonia.Node, scale float64) error
	// TallyNegEntropy adds scale·Σ_{i<rows} w·Σ_c q·log q over the rows of
	// p's output probs (q = 0 adding nothing) to the step's loss sum.
	TallyNegEntropy(g Grads, p Program, probs *gorgonia.Node, rows int, w, scale float64) error
}

// NumericsNamer is a back end that names the arithmetic it computes with
// beyond its device — the variant of its kernels (the OpenCL back end's
// matrix-product parameters, its convolutions' path), which changes
// results in their last bits and speed a great deal — for every result to
// record beside the device (training.Result.Numerics).
type NumericsNamer interface {
	Numerics() string
}

// StateHolder is a back end that keeps model state besides the parameters
// on its device (the OpenCL back end's batch-norm running averages of
// programs compiled with Options.RunningOnDevice). Push and Pull move a
// node it Holds as they move parameters; the caller pulls before reading
// its Go value and pushes after changing it.
type StateHolder interface {
	Holds(n *gorgonia.Node) bool
}

// Held returns the nodes of ns that be holds on its device (none unless it
// is a StateHolder).
func Held(be Backend, ns gorgonia.Nodes) gorgonia.Nodes {
	h, ok := be.(StateHolder)
	if !ok {
		return nil
	}
	var out gorgonia.Nodes
	for _, n := range ns {
		if h.Holds(n) {
			out = append(out, n)
		}
	}
	return out
}

// MemoryChecker is a back end that can tell, before the first run, whether
// what it compiled fits its device's memory.
type MemoryChecker interface {
	// CheckMemory returns a *MemoryError when the parameters, gradients,
	// optimizer state and the largest program's activations need more than
	// the device has.
	CheckMemory() error
}

// MemoryPart is one item of a MemoryError's account.
type MemoryPart struct {
	What  string
	Bytes int64
}

// MemoryError reports a run that does not fit its device's memory, with
// the account of what it needs.
type MemoryError struct {
	Device string
	Need   int64 // at least this many bytes
	Limit  int64 // the device's global memory (or the limit set for it)
	Parts  []MemoryPart
}

func (e *MemoryError) Error() string {
	var parts []string
	for _, p := range e.Parts {
		if p.Bytes > 0 {
			parts = append(parts, fmt.Sprintf("%s %s", p.What, FormatBytes(p.Bytes)))
		}
	}
	return fmt.Sprintf("device %s: the run needs at least %s of device memory (%s), more than the device's %s (CL_DEVICE_GLOBAL_MEM_SIZE): use a smaller --batch-size or model, or a device with more memory",
		e.Device, FormatBytes(e.Need), strings.Join(parts, ", "), FormatBytes(e.Limit))
}

// FormatBytes writes a byte count in GiB, MiB or KiB with three
// significant digits.
func FormatBytes(b int64) string {
	switch {
	case b >= 1<<30:
		return fmt.Sprintf("%.3g GiB", float64(b)/(1<<30))
	case b >= 1<<20:
		return fmt.Sprintf("%.3g MiB", float64(b)/(1<<20))
	case b >= 1<<10:
		return fmt.Sprintf("%.3g KiB", float64(b)/(1<<10))
	}
	return fmt.Sprintf("%d B", b)
}

// Profiler is a back end that can time each operation of the steps it
// runs (the device's per-op profile): between StartProfile and
// StopProfile it waits for every operation to finish before the next
// begins (so a profiled step runs slower than a plain one, and the sum of
// the operations' times is the step without the overlap of host and
// device) and records its time, launches and work.
type Profiler interface {
	StartProfile()
	StopProfile() Profile
}

// Profile is what a Profiler recorded: one row per operation kind and
// geometry, in the order first seen.
type Profile struct {
	Ops []OpProfile `json:"ops"`
	// Seconds is the time of every row together.
	Seconds float64 `json:"seconds"`
	// Note says how the times were taken.
	Note string `json:"note"`
	// GEMMs are the matrix products the device's BLAS ran in the step —
	// those of the convolutions (im2col) among them — by shape: the
	// shapes a tuning pass times (llpfc devices --tune-gemm).
	GEMMs []GEMMProfile `json:"gemms,omitempty"`
}

// GEMMProfile is one shape of BLAS product in a profiled step: op(A) m×k
// times op(B) k×n (TA, TB: 1 where transposed), its calls and their wall
// time, each waited for before and after.
type GEMMProfile struct {
	TA      int     `json:"ta"`
	TB      int     `json:"tb"`
	M       int     `json:"m"`
	N       int     `json:"n"`
	K       int     `json:"k"`
	Calls   int     `json:"calls"`
	Seconds float64 `json:"seconds"`
}

// OpProfile is one operation kind at one geometry: Calls runs of it took
// Seconds together, launched Launches commands and did FLOPs
// floating-point operations (2 a multiply-add; 0 where the kind is not
// arithmetic-bound) on Bytes bytes (what its inputs and outputs hold,
// read or written once: the least traffic it needs).
type OpProfile struct {
	Category string `json:"category"`
	Kind     string `json:"kind"`
	// Geometry is the shape of a convolution (N, C, H, W, O, K, pad,
	// stride) or a matrix product (m, n, k, ta, tb: C = op(A)·op(B), op
	// transposing when ta or tb is 1), the key the PyTorch peer times the
	// same operation by; empty for other kinds.
	Geometry map[string]int `json:"geometry,omitempty"`
	Calls    int            `json:"calls"`
	Seconds  float64        `json:"seconds"`
	Launches int64          `json:"launches"`
	FLOPs    int64          `json:"flops"`
	Bytes    int64          `json:"bytes"`
}

// The categories of a profile's operations (OpCategory).
const (
	CatConvForward = "conv forward"
	CatConvData    = "conv backward-data"
	CatConvFilter  = "conv backward-filter"
	CatConvBias    = "conv backward-bias"
	CatGEMM        = "GEMM"
	CatBatchNorm   = "batch norm"
	CatPool        = "pooling"
	CatDropout     = "dropout"
	CatAugment     = "augmentation"
	CatLoss        = "loss"
	CatElementwise = "elementwise"
	CatReduction   = "reduction"
	CatLayout      = "layout"
	CatOptimizer   = "optimizer"
	CatGradients   = "gradients"
	CatChecks      = "step checks"
	CatTransfers   = "transfers"
	CatOther       = "other"
)

// OpCategory names the category of an operation kind (OpKind): what a
// per-op profile sums, and what the vendor's libraries offer one kernel
// for (a convolution's three passes, a matrix product, batch norm, …).
func OpCategory(kind string) string {
	switch {
	case kind == "llpfc.Conv2dIm2col" || kind == "gorgonia.im2colOp":
		return CatConvForward
	case kind == "llpfc.Conv2dIm2colGrad(x)" || kind == "gorgonia.col2imOp":
		return CatConvData
	case kind == "llpfc.Conv2dIm2colGrad(W)":
		return CatConvFilter
	case kind == "llpfc.Conv2dIm2colGrad(b)":
		return CatConvBias
	case strings.HasPrefix(kind, "gorgonia.linAlgBinOp("):
		return CatGEMM
	case strings.Contains(kind, "BatchNorm"):
		return CatBatchNorm
	case strings.Contains(kind, "MaxPool") || strings.Contains(kind, "maxPool"):
		return CatPool
	case strings.HasPrefix(kind, "llpfc.Dropout"):
		return CatDropout
	case kind == "llpfc.CropFlip":
		return CatAugment
	case strings.HasPrefix(kind, "llpfc.FCLoss") || strings.HasPrefix(kind, "gorgonia.softmax"):
		return CatLoss
	case strings.HasPrefix(kind, "gorgonia.elemBinOp(") || strings.HasPrefix(kind, "gorgonia.elemUnaryOp(") ||
		strings.HasPrefix(kind, "gorgonia.repeatOp("):
		return CatElementwise
	case strings.HasPrefix(kind, "gorgonia.sumOp(") || strings.HasPrefix(kind, "gorgonia.maxOp("):
		return CatReduction
	case strings.HasPrefix(kind, "gorgonia.transposeOp(") || kind == "gorgonia.reshapeOp":
		return CatLayout
	}
	return CatOther
}
