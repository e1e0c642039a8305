package opcheck

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/device/cpu"
	"github.com/llpfc/llpfc/training/nn"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Tol is the tolerance of the per-kind checks: an output entry may differ
// from the CPU's by Tol times the larger of its magnitude and its tensor's
// RMS (float32 kernels that sum in another order, transcendental functions
// within a few ulps).
const Tol = 1e-5

// After runs after a back end's program (updates such as the batch-norm
// running averages, which a back end may keep on its device) and returns
// more values to compare.
type After func(be device.Backend) ([][]float64, error)

// Case is a small graph: Build makes, in a new graph with the random
// numbers of r, the nodes to compare (outputs), the program's options and
// an optional After. It is called once per back end with the same numbers.
// Exact cases (a copy of pixels, no arithmetic) pass only when every
// output entry equals the CPU's bit for bit.
type Case struct {
	Name  string
	Build func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options, After)
	Exact bool
}

// Result is one case on one back end against the CPU: the operation kinds
// its programs ran, the worst entry (Worst, relative; output Output, entry
// Entry, the device's Got against the CPU's Want), or the error that
// stopped it.
type Result struct {
	Case          string
	Kinds         []string
	Worst         float64
	Output, Entry int
	Got, Want     float64
	Err           error
	Exact         bool // the case's: any difference fails
}

// OK reports whether the case ran and every output is within Tol (equal,
// for an Exact case).
func (r Result) OK() bool { return r.Err == nil && (r.Worst <= Tol && !r.Exact || r.Worst == 0) }

func (r Result) String() string {
	if r.Err != nil {
		return fmt.Sprintf("%s: %v", r.Case, r.Err)
	}
	return fmt.Sprintf("%s: worst entry %.3g (output %d entry %d: %g, CPU %g)", r.Case, r.Worst, r.Output, r.Entry, r.Got, r.Want)
}

// Run runs c on the CPU and on be and compares the outputs.
func Run(be device.Backend, c Case) Result {
	res := Result{Case: c.Name, Exact: c.Exact}
	want, _, err := runOn(cpu.New(), c)
	if err != nil {
		res.Err = fmt.Errorf("on the CPU: %w", err)
		return res
	}
	got, kinds, err := runOn(be, c)
	res.Kinds = kinds
	if err != nil {
		res.Err = err
		return res
	}
	if len(got) != len(want) {
		res.Err = fmt.Errorf("%d outputs, the CPU %d", len(got), len(want))
		return res
	}
	for i := range want {
		if len(got[i]) != len(want[i]) {
			res.Err = fmt.Errorf("output %d has %d values, the CPU's %d", i, len(got[i]), len(want[i]))
			return res
		}
		if w, at := Worst(got[i], want[i], 0); w > res.Worst || math.IsNaN(w) {
			res.Worst, res.Output, res.Entry, res.Got, res.Want = w, i, at, got[i][at], want[i][at]
		}
	}
	return res
}

// Kinds returns every operation kind the results ran, and those whose
// every case passed.
func Kinds(rs []Result) (all []string, ok map[string]bool) {
	ok = map[string]bool{}
	bad := map[string]bool{}
	for _, r := range rs {
		for _, k := range r.Kinds {
			if _, seen := ok[k]; !seen && !bad[k] {
				all = append(all, k)
			}
			if !r.OK() {
				bad[k] = true
				delete(ok, k)
			} else if !bad[k] {
				ok[k] = true
			}
		}
	}
	sort.Strings(all)
	return all, ok
}

// runOn runs c on be and returns every output's values, then After's, and
// the kinds its programs ran. On the CPU each output is computed by a
// program of its own: the tape machine may overwrite a value a later
// operation consumes, so only a program's final values are the CPU's
// reference. A panic while building the graph is an error.
func runOn(be device.Backend, c Case) (out [][]float64, ops []string, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("building the graph: %v", p)
		}
	}()
	g := gorgonia.NewGraph()
	outs, opts, after := c.Build(g, rand.New(rand.NewPCG(17, uint64(len(c.Name)))))
	opts.Name = c.Name
	var reads, vals gorgonia.Nodes
	for _, n := range outs {
		if device.OpKind(n.Op()) == "gorgonia.readOp(print)" {
			reads = append(reads, n) // a statement: its value goes to the host (After)
		} else {
			vals = append(vals, n)
		}
	}
	progs := [][]*gorgonia.Node{outs}
	if _, isCPU := be.(*cpu.Backend); isCPU {
		progs = nil
		for _, n := range vals {
			progs = append(progs, append(gorgonia.Nodes{n}, reads...))
		}
	}
	for _, pn := range progs {
		vs, kinds, err := runProgram(be, g, pn, opts, len(progs) > 1)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, vs...)
		ops = append(ops, kinds...)
	}
	if after != nil {
		more, err := after(be)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, more...)
	}
	return out, ops, nil
}

// runProgram compiles and runs one program and returns its outputs'
// values (only the first when first is set) and its kinds.
func runProgram(be device.Backend, g *gorgonia.ExprGraph, pn gorgonia.Nodes, opts device.Options, first bool) ([][]float64, []string, error) {
	p, err := be.Compile(g, pn, opts)
	if err != nil {
		return nil, nil, err
	}
	defer p.Close()
	if err := p.Run(); err != nil {
		return nil, nil, err
	}
	var out [][]float64
	for _, n := range pn {
		if device.OpKind(n.Op()) == "gorgonia.readOp(print)" || (first && n != pn[0]) {
			continue
		}
		v, err := p.Value(n)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", n.Name(), err)
		}
		out = append(out, nn.ValueData(v))
	}
	return out, p.Ops(), nil
}

// RMS is the root mean square of x, summed in float64.
func RMS[F float32 | float64](x []F) float64 {
	var ss float64
	for _, v := range x {
		ss += float64(v) * float64(v)
	}
	return math.Sqrt(ss / float64(max(len(x), 1)))
}

// Worst returns the worst |a_i − b_i| / max(|b_i|, rms(b), floor) over the
// entries (b the reference) and its index; an entry that differs where that
// scale is 0, or by NaN, is +Inf. The op checks use floor 0, the parity
// checks (training.CheckParity) a floor of their own.
func Worst[F float32 | float64](a, b []F, floor float64) (float64, int) {
	scale := math.Max(RMS(b), floor)
	worst, at := 0.0, 0
	for i := range b {
		d := math.Abs(float64(a[i]) - float64(b[i]))
		if d == 0 {
			continue
		}
		s := math.Max(math.Abs(float64(b[i])), scale)
		r := d / s
		if s == 0 || math.IsNaN(d) {
			r = math.Inf(1)
		}
		if r > worst {
			worst, at = r, i
		}
	}
	return worst, at
}

// Tensor returns a float32 node of shape with entries U(lo, hi).
func Tensor(g *gorgonia.ExprGraph, r *rand.Rand, name string, lo, hi float64, shape ...int) *gorgonia.Node {
	n := 1
	for _, s := range shape {
		n *= s
	}
	d := make([]float32, n)
	for i := range d {
		d[i] = float32(lo + (hi-lo)*r.Float64())
	}
	t := tensor.New(tensor.WithShape(shape...), tensor.WithBacking(d))
	return gorgonia.NewTensor(g, tensor.Float32, len(shape), gorgonia.WithShape(shape...), gorgonia.WithName(name), gorgonia.WithValue(t))
}

// Must returns n, panicking on err (graph construction in the cases; Run
// turns a panic into the case's error).
func Must(n *gorgonia.Node, err error) *gorgonia.Node {
	if err != nil {
		panic(err)
	}
	return n
}

// Grads returns the gradients of cost with respect to wrt (panicking on
// an error, as Must).
func Grads(cost *gorgonia.Node, wrt ...*gorgonia.Node) gorgonia.Nodes {
	gs, err := gorgonia.Grad(cost, wrt...)
	if err != nil {
		panic(err)
	}
	return gs
}

// WeightedSum returns Σ x ⊙ w for a fixed random w: a scalar cost whose
// gradient with respect to x is w.
func WeightedSum(g *gorgonia.ExprGraph, r *rand.Rand, x *gorgonia.Node) *gorgonia.Node {
	w := Tensor(g, r, "w-"+x.Name(), -1, 1, x.Shape()...)
	return Must(gorgonia.Sum(Must(gorgonia.HadamardProd(x, w))))
}

// Randomize fills a float32 node's value with U(lo, hi) entries.
func Randomize(r *rand.Rand, n *gorgonia.Node, lo, hi float64) {
	d := n.Value().Data().([]float32)
	for i := range d {
		d[i] = float32(lo + (hi-lo)*r.Float64())
	}
}
