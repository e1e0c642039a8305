package opencl

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/nn"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// ProfileEnv names the variable that makes a back end profile everything
// it runs from Open (device.Profiler) and print the profile to standard
// error when it is closed.
const ProfileEnv = "LLPFC_OPENCL_PROFILE"

// The per-op profile (device.Profiler): where a step's time goes on the
// device before any kernel is changed (bench/gpu/README.md: the first
// NVIDIA run measured whole steps only). While it is on, every step of a
// program, the gradients' accumulation, the step checks and the
// optimizer's update wait for the device (clFinish) before and after, and
// the wall time between is the operation's; each operation's work is
// read from its node's shapes (workOf). A profiled step is slower than a
// plain one by a wait per operation (tens of microseconds on a GPU).

// profiler sums the operations' times, launches and work.
type profiler struct {
	on    atomic.Bool
	env   bool
	mu    sync.Mutex
	rows  []*device.OpProfile
	index map[string]*device.OpProfile
}

func newProfiler() *profiler {
	p := &profiler{index: map[string]*device.OpProfile{}}
	if os.Getenv(ProfileEnv) != "" {
		p.env = true
		p.on.Store(true)
	}
	return p
}

func (p *profiler) active() bool { return p.on.Load() }

// opWork is what one run of an operation does: its category and kind, the
// geometry the PyTorch peer times it by, its floating-point operations
// and the bytes its operands hold.
type opWork struct {
	cat, kind   string
	geom        map[string]int
	flops, byts int64
}

func (w opWork) key() string {
	keys := make([]string, 0, len(w.geom))
	for k := range w.geom {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(w.cat + "|" + w.kind)
	for _, k := range keys {
		fmt.Fprintf(&b, "|%s=%d", k, w.geom[k])
	}
	return b.String()
}

func (p *profiler) add(w opWork, d time.Duration, launches int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := w.key()
	r := p.index[k]
	if r == nil {
		r = &device.OpProfile{Category: w.cat, Kind: w.kind, Geometry: w.geom}
		p.index[k] = r
		p.rows = append(p.rows, r)
	}
	r.Calls++
	r.Seconds += d.Seconds()
	r.Launches += launches
	r.FLOPs += w.flops
	r.Bytes += w.byts
}

// StartProfile clears the profile and starts recording (device.Profiler).
func (b *Backend) StartProfile() {
	b.prof.mu.Lock()
	b.prof.rows, b.prof.index = nil, map[string]*device.OpProfile{}
	b.prof.mu.Unlock()
	b.ctx.RecordGEMMs(true)
	b.prof.on.Store(true)
}

// StopProfile stops recording and returns what was recorded since
// StartProfile (nothing at a second call).
func (b *Backend) StopProfile() device.Profile {
	b.prof.on.Store(false)
	out := b.prof.profile()
	for _, g := range b.ctx.StopGEMMs() {
		out.GEMMs = append(out.GEMMs, device.GEMMProfile{TA: b2i(g.TransA), TB: b2i(g.TransB), M: g.M, N: g.N, K: g.K, Calls: g.Calls, Seconds: g.Seconds})
	}
	b.prof.mu.Lock()
	b.prof.rows, b.prof.index = nil, map[string]*device.OpProfile{}
	b.prof.mu.Unlock()
	return out
}

func (p *profiler) profile() device.Profile {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := device.Profile{Note: "wall time of each operation between two clFinish calls (a profiled step waits for the device after every operation); FLOPs count a multiply-add as 2, bytes what the operands hold"}
	for _, r := range p.rows {
		out.Ops = append(out.Ops, *r)
		out.Seconds += r.Seconds
	}
	return out
}

// timed runs f, an operation of work w, and records it when the profile
// is on.
func (b *Backend) timed(w opWork, f func() error) error {
	if !b.prof.active() {
		return f()
	}
	if err := b.ctx.Finish(); err != nil {
		return err
	}
	t0, c0 := time.Now(), b.ctx.Counts().Launches()
	if err := f(); err != nil {
		return err
	}
	if err := b.ctx.Finish(); err != nil {
		return err
	}
	b.prof.add(w, time.Since(t0), b.ctx.Counts().Launches()-c0)
	return nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// write prints the kinds by total time, largest first (ProfileEnv).
func (p *profiler) write(w io.Writer, name string) {
	pr := p.profile()
	sort.SliceStable(pr.Ops, func(i, j int) bool { return pr.Ops[i].Seconds > pr.Ops[j].Seconds })
	fmt.Fprintf(w, "%s: %.3f s in %d operations\n", name, pr.Seconds, len(pr.Ops))
	for _, r := range pr.Ops {
		fmt.Fprintf(w, "  %10.6f s %6d× %8d launches %-22s %s %v\n", r.Seconds, r.Calls, r.Launches, r.Category, r.Kind, r.Geometry)
	}
}

// workOf reads the work of node n's operation from its shapes: a
// convolution's 2·N·O·OH·OW·C·K² operations (each of its three passes), a
// matrix product's 2·m·n·k, and for every kind the bytes its inputs and
// output hold.
func workOf(n *gorgonia.Node) opWork {
	kind := device.OpKind(n.Op())
	w := opWork{cat: device.OpCategory(kind), kind: kind}
	elems := int64(n.Shape().TotalSize())
	ch := device.Children(n)
	for _, c := range ch {
		elems += int64(c.Shape().TotalSize())
	}
	w.byts = 4 * elems
	conv := func(g nn.ConvGeometry, batch int) {
		oh, ow := (g.H+2*g.Pad-g.K)/g.Stride+1, (g.W+2*g.Pad-g.K)/g.Stride+1
		w.flops = 2 * int64(batch) * int64(g.O) * int64(oh) * int64(ow) * int64(g.C) * int64(g.K) * int64(g.K)
		w.geom = map[string]int{"N": batch, "C": g.C, "H": g.H, "W": g.W, "O": g.O, "K": g.K, "pad": g.Pad, "stride": g.Stride}
	}
	switch op := n.Op().(type) {
	case interface{ ConvGeometry() nn.ConvGeometry }:
		if len(ch) > 0 && ch[0].Shape().Dims() == 4 {
			conv(op.ConvGeometry(), ch[0].Shape()[0])
		}
		return w
	case interface {
		ConvGrad() (nn.ConvGeometry, int, tensor.Shape)
	}:
		g, wrt, xs := op.ConvGrad()
		if xs.Dims() == 4 {
			conv(g, xs[0])
			if wrt == 2 { // the bias: a sum over N, OH, OW
				w.flops, w.geom = 0, nil
			}
		}
		return w
	}
	if w.cat != device.CatGEMM || len(ch) != 2 {
		return w
	}
	as, bs := ch[0].Shape(), ch[1].Shape()
	if kind == "gorgonia.linAlgBinOp(a ⊗ b)" {
		m, k := as.TotalSize(), bs.TotalSize()
		w.flops, w.geom = int64(m)*int64(k), map[string]int{"m": m, "n": k, "k": 1, "ta": 0, "tb": 0}
		return w
	}
	tA, errA := boolField(n.Op(), "transA")
	tB, errB := boolField(n.Op(), "transB")
	if errA != nil || errB != nil || as.Dims() != 2 || bs.Dims() < 1 || bs.Dims() > 2 {
		return w
	}
	m, k := as[0], as[1]
	if tA {
		m, k = k, m
	}
	nn := 1
	if bs.Dims() == 2 {
		nn = bs[1]
		if tB {
			nn = bs[0]
		}
	} else {
		tB = false
	}
	b2i := map[bool]int{false: 0, true: 1}
	w.flops = 2 * int64(m) * int64(nn) * int64(k)
	w.geom = map[string]int{"m": m, "n": nn, "k": k, "ta": b2i[tA], "tb": b2i[tB]}
	return w
}
