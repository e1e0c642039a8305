package scaling

import (
	"strings"

	"github.com/llpfc/llpfc/internal/stepprof"
	"github.com/llpfc/llpfc/training"
	"github.com/llpfc/llpfc/training/optim"
)

// The classes of operation kinds a prediction is summed over: the kinds a
// per-operation profile of a device names too (convolution forward,
// backward-data, backward-filter, GEMM, batch norm, element-wise, loss,
// optimizer), and the step's host side.
const (
	ClassConvForward = "convolution forward"
	ClassConvData    = "convolution backward-data"
	ClassConvFilter  = "convolution backward-filter"
	ClassGEMM        = "GEMM (dense layers)"
	ClassBatchNorm   = "batch norm"
	ClassPooling     = "pooling"
	ClassElementwise = "elementwise"
	ClassLoss        = "loss"
	ClassOptimizer   = "optimizer"
	ClassHost        = "host side (minibatch, gradients' checks)"
	ClassBookkeeping = "graph bookkeeping"
	ClassOther       = "other"
)

// Classes lists the classes in the order reports show them.
var Classes = []string{ClassConvForward, ClassConvData, ClassConvFilter, ClassGEMM, ClassBatchNorm, ClassPooling,
	ClassElementwise, ClassLoss, ClassOptimizer, ClassHost, ClassBookkeeping, ClassOther}

// Class returns the class of an operation kind (device.OpKind) or of one of
// the step's other regions.
func Class(kind string) string {
	has := func(s ...string) bool {
		for _, x := range s {
			if strings.Contains(kind, x) {
				return true
			}
		}
		return false
	}
	switch {
	case kind == optim.ProfileRegion:
		return ClassOptimizer
	case kind == training.RegionGradReset || kind == training.RegionGradCheck || kind == training.RegionMethodHost || kind == stepprof.Outside:
		return ClassHost
	case has("Conv2dIm2colGrad(x)", "col2imOp"):
		return ClassConvData
	case has("Conv2dIm2colGrad(W)", "Conv2dIm2colGrad(b)"):
		return ClassConvFilter
	case has("Conv2dIm2col", "im2colOp"):
		return ClassConvForward
	case has("linAlgBinOp", "matMul", "matVecMul"):
		return ClassGEMM
	case has("BatchNorm"):
		return ClassBatchNorm
	case has("MaxPool", "maxPool", "AvgPool"):
		return ClassPooling
	case has("FCLoss", "KL", "softmax", "Softmax", "LogSumExp", "Loss"):
		return ClassLoss
	case has("elemBinOp", "elemUnaryOp", "repeatOp", "sumOp", "maxOp", "Dropout", "CropFlip", "ReLU", "Rectify"):
		return ClassElementwise
	case has("reshapeOp", "sizeOp", "constantScalar", "transposeOp", "readOp", "letOp"):
		return ClassBookkeeping
	}
	return ClassOther
}

// Eff returns how many workers a section of width w keeps busy on P
// threads: w/⌈w/P⌉ for fixed chunks (the slowest worker takes ⌈w/P⌉ of
// them), min(w, P) for divisible work.
func Eff(w stepprof.Width, p int) float64 {
	n := max(w.N, 1)
	if w.Fixed {
		rounds := (n + p - 1) / p
		return float64(n) / float64(rounds)
	}
	return float64(min(n, p))
}

// OpEstimate is an operation's predicted time per step on P threads.
type OpEstimate struct {
	Name, Class string
	// Serial is S, Parallel Σ W/eff, Memory B/BW (0 without a bandwidth);
	// Seconds = Serial + max(Parallel, Memory).
	Serial, Parallel, Memory, Seconds float64
}

// Estimate is a step's predicted time on P threads.
type Estimate struct {
	Threads int
	Ops     []OpEstimate
}

// Seconds returns the predicted step time.
func (e Estimate) Seconds() float64 {
	return sum(e.Ops, func(o OpEstimate) float64 { return o.Seconds })
}

// Serial returns the predicted serial seconds.
func (e Estimate) Serial() float64 { return sum(e.Ops, func(o OpEstimate) float64 { return o.Serial }) }

// ByClass returns the predicted seconds of each class.
func (e Estimate) ByClass() map[string]float64 {
	m := map[string]float64{}
	for _, o := range e.Ops {
		m[o.Class] += o.Seconds
	}
	return m
}

// memory is the machine the memory floor reads: its bandwidth (GB/s, 0:
// none) and its last-level cache (bytes, 0: unknown): an operation whose
// values fit the cache is not held to the bandwidth of memory.
type memory struct {
	bw    float64
	cache float64
}

// opEstimate predicts operation o on p threads with its serial time and
// its sections' work given; its memory floor counts when one call's bytes
// exceed the cache.
func opEstimate(o Op, serial float64, work []Work, p int, m memory) OpEstimate {
	e := OpEstimate{Name: o.Name, Class: o.Class, Serial: serial}
	for _, w := range work {
		e.Parallel += w.CPU / Eff(w.Width, p)
	}
	if m.bw > 0 && o.Bytes/max(o.Calls, 1) > m.cache {
		e.Memory = o.Bytes / (m.bw * 1e9)
	}
	e.Seconds = e.Serial + max(e.Parallel, e.Memory)
	return e
}

// Structural predicts the step on p cores from a run at p threads (its
// serial and section CPU times; the run may come from a machine with fewer
// cores), with bandwidth bw GB/s (0: no memory floor).
func Structural(r Run, p int, bw float64) Estimate {
	e := Estimate{Threads: p}
	m := memory{bw: bw, cache: float64(r.CacheBytes)}
	for _, o := range r.Ops {
		e.Ops = append(e.Ops, opEstimate(o, o.SerialCPU, o.Work, p, m))
	}
	return e
}

// Extrapolated predicts the step on p cores from runs a and b at two
// thread counts (a.Threads < b.Threads, normally 1 and 2): an operation's
// serial time is b's, each width's section CPU time grows from a's by the
// growth per added thread that b shows (goroutines started, operands each
// worker packs; never taken as a shrink), and a width seen at one count
// only keeps its time. Operations are matched by name; one measured at one
// count only is taken as it is.
func Extrapolated(a, b Run, p int, bw float64) Estimate {
	e := Estimate{Threads: p}
	m := memory{bw: bw, cache: float64(b.CacheBytes)}
	dp := float64(b.Threads - a.Threads)
	byName := map[string]Op{}
	for _, o := range a.Ops {
		byName[o.Name] = o
	}
	seen := map[string]bool{}
	for _, o := range b.Ops {
		seen[o.Name] = true
		ao, ok := byName[o.Name]
		if !ok {
			e.Ops = append(e.Ops, opEstimate(o, o.SerialCPU, o.Work, p, m))
			continue
		}
		e.Ops = append(e.Ops, opEstimate(o, o.SerialCPU, extrapolateWork(ao.Work, o.Work, float64(p-b.Threads), dp), p, m))
	}
	for _, o := range a.Ops {
		if !seen[o.Name] {
			e.Ops = append(e.Ops, opEstimate(o, o.SerialCPU, o.Work, p, m))
		}
	}
	return e
}

// extrapolateWork returns b's widths with their CPU time moved on by
// steps·(growth per thread from a to b), a width at one count only as it is.
func extrapolateWork(a, b []Work, steps, dp float64) []Work {
	at := map[stepprof.Width]float64{}
	for _, w := range a {
		at[w.Width] = w.CPU
	}
	var out []Work
	inB := map[stepprof.Width]bool{}
	for _, w := range b {
		inB[w.Width] = true
		if cpuA, ok := at[w.Width]; ok && dp > 0 {
			w.CPU += steps * max(0, w.CPU-cpuA) / dp
		}
		out = append(out, w)
	}
	for _, w := range a {
		if !inB[w.Width] {
			out = append(out, w)
		}
	}
	return out
}

// Hybrid predicts the step on p cores from a run r at p threads for the
// structure (each operation's serial time, and how its sections' work is
// spread over widths: the code paths p threads take) and a run b at fewer
// threads for the amount of that work: each operation's section CPU time
// is b's, spread over r's widths in r's proportions. It is the prediction a
// machine with fewer cores than p makes best: run at p threads there, the
// sections' goroutines share its few cores and each other's caches, which
// inflates their CPU time (2.4× for VGG16's Winograd forward at 16 threads
// on 2 cores), not the serial time nor the widths. An operation b did not
// run keeps r's work.
func Hybrid(b, r Run, p int, bw float64) Estimate {
	e := Estimate{Threads: p}
	m := memory{bw: bw, cache: float64(r.CacheBytes)}
	base := map[string]float64{}
	for _, o := range b.Ops {
		base[o.Name] = o.SectionCPU
	}
	for _, o := range r.Ops {
		work := o.Work
		if w, ok := base[o.Name]; ok && o.SectionCPU > 0 {
			scale := w / o.SectionCPU
			work = make([]Work, len(o.Work))
			for i, x := range o.Work {
				x.CPU *= scale
				work[i] = x
			}
		}
		e.Ops = append(e.Ops, opEstimate(o, o.SerialCPU, work, p, m))
	}
	return e
}
