package opencl

import (
	"strings"

	"github.com/llpfc/llpfc/internal/opencl"
	"github.com/llpfc/llpfc/training/device"
	"gorgonia.org/gorgonia"
)

// Fusions of a dense layer's bias and activation: gorgonia
// builds BroadcastAdd(x·W, b) as Repeat(b) then +, and Rectify(a) as
// m = (a ≥ 0) then a ⊙ m, four launches and two buffers for what one
// kernel does. Before lowering, the compiler finds
//   - a Repeat read only by one + (the same size as the sum): folded,
//     the + reads b in place (opencl.Lib.BiasAdd), the Repeat has no
//     step and no buffer;
//   - m = (a ≥ 0) with a constant 0, and y = a ⊙ m: made together by m's
//     step (opencl.Lib.ReLUMask), y has no step of its own;
//   - both, with a read by nothing else: a is computed inside that kernel
//     and stored nowhere.
//
// No fused node may be an output of the program (its value would not
// exist). The results are the unfused kernels' bit for bit
// (TestFusedBiasReLU; TestOpenCLParity holds the models).
type fusions struct {
	folded  map[*gorgonia.Node]bool           // Repeats read in place
	biasOf  map[*gorgonia.Node]*gorgonia.Node // + → its folded Repeat
	reluY   map[*gorgonia.Node]*gorgonia.Node // m → y, made together
	madeBy  map[*gorgonia.Node]*gorgonia.Node // y → m
	inlined map[*gorgonia.Node]bool           // + computed inside m's kernel
	yValue  map[*gorgonia.Node]*value         // y's buffer, defined at m's step
}

const (
	kindAdd = "gorgonia.elemBinOp(+)"
	kindGte = "gorgonia.elemBinOp(>= same)"
	kindMul = "gorgonia.elemBinOp(⊙)"
)

// findFusions marks the patterns among the program's nodes.
func (c *compiler) findFusions() {
	f := &fusions{folded: map[*gorgonia.Node]bool{}, biasOf: map[*gorgonia.Node]*gorgonia.Node{}, reluY: map[*gorgonia.Node]*gorgonia.Node{},
		madeBy: map[*gorgonia.Node]*gorgonia.Node{}, inlined: map[*gorgonia.Node]bool{}, yValue: map[*gorgonia.Node]*value{}}
	c.fus = f
	users := map[*gorgonia.Node][]*gorgonia.Node{}
	for _, n := range c.nodes {
		if n.Op() == nil {
			continue
		}
		for _, ch := range device.Children(n) {
			users[ch] = append(users[ch], n)
		}
	}
	kind := func(n *gorgonia.Node) string {
		if n.Op() == nil {
			return ""
		}
		return device.OpKind(n.Op())
	}
	free := func(n *gorgonia.Node) bool { return !c.p.outs[n] }
	for _, a := range c.nodes {
		if kind(a) != kindAdd {
			continue
		}
		in := device.Children(a)
		if len(in) != 2 {
			continue
		}
		for k, r := range in {
			other := in[1-k]
			if strings.HasPrefix(kind(r), "gorgonia.repeatOp(Repeat") && len(users[r]) == 1 && free(r) && other != r &&
				other.Shape().TotalSize() == a.Shape().TotalSize() && r.Shape().TotalSize() == a.Shape().TotalSize() {
				f.folded[r], f.biasOf[a] = true, r
				break
			}
		}
	}
	for _, m := range c.nodes {
		if kind(m) != kindGte {
			continue
		}
		in := device.Children(m)
		if len(in) != 2 || !isZeroConstant(in[1]) {
			continue
		}
		a := in[0]
		for _, y := range users[m] {
			if yin := device.Children(y); kind(y) == kindMul && len(yin) == 2 && yin[0] == a && yin[1] == m && free(m) {
				f.reluY[m], f.madeBy[y] = y, m
				break
			}
		}
		y, ok := f.reluY[m]
		if !ok || f.biasOf[a] == nil || !free(a) {
			continue
		}
		inline := true
		for _, u := range users[a] {
			inline = inline && (u == m || u == y)
		}
		f.inlined[a] = inline
	}
}

// isZeroConstant reports whether n is a constant scalar 0.
func isZeroConstant(n *gorgonia.Node) bool {
	cv, ok := n.Op().(interface{ Value() gorgonia.Value })
	if !ok || n.Op() == nil {
		return false
	}
	v, ok := cv.Value().Data().(float32)
	return ok && v == 0
}

// lowerFused makes the step of a node that takes part in a fusion, or
// reports that it does not (handled false).
func (c *compiler) lowerFused(n *gorgonia.Node, out *slot, in []*slot, i int) (run func(*program) error, handled bool, err error) {
	f := c.fus
	switch {
	case f.folded[n] || f.inlined[n]:
		out.kind = slotFused
		return nil, true, nil
	case f.madeBy[n] != nil:
		out.kind, out.val = slotComputed, f.yValue[n]
		return nil, true, nil
	case f.biasOf[n] != nil:
		x, bias, g, err := c.biasOperands(n, in)
		if err != nil {
			return nil, true, err
		}
		c.read(bias, i)
		out.kind = slotComputed
		return func(p *program) error { return p.lib().BiasAdd(p.buf(x), p.buf(bias), p.buf(out), g) }, true, nil
	case f.reluY[n] != nil:
		return c.lowerReLUMask(n, out, in, i)
	}
	return nil, false, nil
}

// biasOperands returns the + node's other operand, the repeated bias and
// the repeat's geometry.
func (c *compiler) biasOperands(a *gorgonia.Node, in []*slot) (x, bias *slot, g opencl.RepeatGeom, err error) {
	r := c.fus.biasOf[a]
	rs := c.p.slots[r]
	x = in[0]
	if in[0] == rs {
		x = in[1]
	}
	g, bias, err = c.repeatGeom(r, rs, c.p.slots)
	return x, bias, g, err
}

// lowerReLUMask: m = (a ≥ 0) and y = a ⊙ m in one kernel, a read from its
// buffer or, inlined, computed as x + repeat(b) in the kernel.
func (c *compiler) lowerReLUMask(m *gorgonia.Node, out *slot, in []*slot, i int) (func(*program) error, bool, error) {
	y := c.fus.reluY[m]
	a := in[0]
	yv := c.newValue(size(y.Shape()), i)
	c.fus.yValue[y] = yv
	out.kind = slotComputed
	n := out.size
	if !c.fus.inlined[a.node] {
		return func(p *program) error {
			return p.lib().ReLUMask(p.buf(a), nil, opencl.RepeatGeom{}, p.buf(out), p.store(yv), n)
		}, true, nil
	}
	x, bias, g, err := c.biasOperands(a.node, c.childSlots(a.node))
	if err != nil {
		return nil, true, err
	}
	c.read(x, i)
	c.read(bias, i)
	return func(p *program) error { return p.lib().ReLUMask(p.buf(x), p.buf(bias), g, p.buf(out), p.store(yv), n) }, true, nil
}

// childSlots returns the slots of n's inputs.
func (c *compiler) childSlots(n *gorgonia.Node) []*slot {
	var out []*slot
	for _, ch := range device.Children(n) {
		out = append(out, c.p.slots[ch])
	}
	return out
}
