package opencl

import (
	"fmt"
	"strings"

	"github.com/llpfc/llpfc/internal/opencl"
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/nn"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// lowerer makes node n's step: out is n's slot (computed unless the
// lowerer makes it an alias, a constant or a statement), in its inputs'
// slots. A nil step runs nothing.
type lowerer func(c *compiler, n *gorgonia.Node, out *slot, in []*slot) (func(p *program) error, error)

// lowerers maps every operation kind (device.OpKind) the back end runs to
// its lowering; Compile reports any other kind as missing.
var lowerers = map[string]lowerer{}

func init() {
	for k, op := range map[string]opencl.BinaryOp{
		"+": opencl.Add, "-": opencl.Sub, "⊙": opencl.Mul, "÷": opencl.Div,
		"< same": opencl.Lt, "> same": opencl.Gt, "<= same": opencl.Lte, ">= same": opencl.Gte,
		"== same": opencl.Eq, "!= same": opencl.Ne,
	} {
		lowerers["gorgonia.elemBinOp("+k+")"] = lowerBinary(op)
	}
	for k, op := range map[string]opencl.UnaryOp{
		"neg": opencl.Neg, "abs": opencl.Abs, "sign": opencl.Sign, "exp": opencl.Exp, "ln": opencl.Ln,
		"inv": opencl.Inv, "sqrt": opencl.Sqrt, "square": opencl.Square, "tanh": opencl.Tanh,
		"sigmoid": opencl.Sigmoid, "softplus": opencl.Softplus, "log1p": opencl.Log1p,
	} {
		lowerers["gorgonia.elemUnaryOp("+k+")"] = lowerUnary(op)
	}
	for _, k := range []string{"A × B", "Aᵀ × B", "A × Bᵀ", "Aᵀ × Bᵀ", "A × b", "Aᵀ × b"} {
		lowerers["gorgonia.linAlgBinOp("+k+")"] = lowerMatMul
	}
	lowerers["gorgonia.linAlgBinOp(a ⊗ b)"] = lowerOuter
	lowerers["gorgonia.softmaxOp(Softmax{-1, false})"] = lowerSoftmax
	lowerers["gorgonia.softmaxDiffOp(SoftmaxDiff{-1, false})"] = lowerSoftmaxDiff
	lowerers["gorgonia.reshapeOp"] = lowerReshape
	lowerers["gorgonia.sizeOp"] = lowerSize
	lowerers["gorgonia.constantScalar"] = lowerConstant
	lowerers["gorgonia.constantTensor"] = lowerConstant
	lowerers["gorgonia.readOp(print)"] = lowerRead
	lowerers["gorgonia.im2colOp"] = lowerIm2col
	lowerers["gorgonia.col2imOp"] = lowerCol2im
	lowerers["gorgonia.maxPoolOp"] = lowerMaxPool
	lowerers["gorgonia.maxPoolDiffOp"] = lowerMaxPoolDiff

	lowerers["llpfc.FCLoss"] = lowerFCLoss
	lowerers["llpfc.FCLossClamped"] = lowerFCLoss
	lowerers["llpfc.FCLossGrad"] = lowerFCLossGrad
	lowerers["llpfc.FCLossClampedGrad"] = lowerFCLossGrad
	lowerers["llpfc.Conv2dIm2col"] = lowerConv
	for _, w := range []string{"x", "W", "b"} {
		lowerers["llpfc.Conv2dIm2colGrad("+w+")"] = lowerConvGrad
	}
	for _, k := range []string{"llpfc.MaxPool2", "llpfc.MaxPool2ReLU"} {
		lowerers[k] = lowerPool2
		lowerers[k+"Grad"] = lowerPool2Grad
	}
	for _, k := range []string{"llpfc.BatchNorm", "llpfc.BatchNormReLU"} {
		lowerers[k] = lowerBN
		for _, w := range []string{"x", "γ", "β"} {
			lowerers[k+"Grad("+w+")"] = lowerBNGrad
		}
	}
	lowerers["llpfc.EvalBatchNorm"] = lowerBNEval
	lowerers["llpfc.EvalBatchNormReLU"] = lowerBNEval
	lowerers["llpfc.Dropout"] = lowerDropout
	lowerers["llpfc.CropFlip"] = lowerCropFlip
	lowerers["llpfc.DropoutGrad"] = lowerDropout
}

// prefixLowerers lower the kinds that name their axes or permutation:
// every axis of a sum or maximum, every axis of a repeat, every
// permutation of a transpose.
var prefixLowerers = []struct {
	prefix string
	lower  lowerer
}{
	{"gorgonia.sumOp(Σ[", lowerReduce(false)},
	{"gorgonia.maxOp(MaxAlong[", lowerReduce(true)},
	{"gorgonia.repeatOp(Repeat", lowerRepeat},
	{"gorgonia.transposeOp(Aᵀ{", lowerTranspose},
}

// lowererOf returns the lowering of an operation kind, nil when the back
// end cannot run it.
func lowererOf(kind string) lowerer {
	if l := lowerers[kind]; l != nil {
		return l
	}
	for _, p := range prefixLowerers {
		if strings.HasPrefix(kind, p.prefix) {
			return p.lower
		}
	}
	return nil
}

// Runs reports whether the back end runs operations of kind
// (device.OpKind).
func Runs(kind string) bool { return lowererOf(kind) != nil }

func arity(c *compiler, n *gorgonia.Node, in []*slot, want int) error {
	if len(in) != want {
		return c.errorf(n, "%d inputs, want %d", len(in), want)
	}
	return nil
}

func lowerBinary(op opencl.BinaryOp) lowerer {
	return func(c *compiler, n *gorgonia.Node, out *slot, in []*slot) (func(*program) error, error) {
		if err := arity(c, n, in, 2); err != nil {
			return nil, err
		}
		a, b, m := in[0], in[1], out.size
		var bc opencl.Broadcast
		switch {
		case a.size == m && b.size == m:
			bc = opencl.SameShape
		case a.size == 1 && b.size == m:
			bc = opencl.ScalarA
		case b.size == 1 && a.size == m:
			bc = opencl.ScalarB
		default:
			return nil, c.errorf(n, "operands of %d and %d values for %d outputs", a.size, b.size, m)
		}
		out.kind = slotComputed
		return func(p *program) error { return p.lib().Binary(op, p.buf(a), p.buf(b), p.buf(out), m, bc) }, nil
	}
}

func lowerUnary(op opencl.UnaryOp) lowerer {
	return func(c *compiler, n *gorgonia.Node, out *slot, in []*slot) (func(*program) error, error) {
		if err := arity(c, n, in, 1); err != nil {
			return nil, err
		}
		x := in[0]
		if x.size != out.size {
			return nil, c.errorf(n, "%d inputs for %d outputs", x.size, out.size)
		}
		u := op
		if u == opencl.Sign && x.shape.IsScalar() {
			u = opencl.SignScalar // gorgonia's scalar sign differs from its tensors' at ±0
		}
		out.kind = slotComputed
		return func(p *program) error { return p.lib().Unary(u, p.buf(x), p.buf(out), out.size) }, nil
	}
}

// lowerMatMul: gorgonia's matMul (2-D × 2-D) and matVecMul (2-D × 1-D) as
// one SGEMM.
func lowerMatMul(c *compiler, n *gorgonia.Node, out *slot, in []*slot) (func(*program) error, error) {
	if err := arity(c, n, in, 2); err != nil {
		return nil, err
	}
	tA, err := boolField(n.Op(), "transA")
	if err != nil {
		return nil, c.errorf(n, "%v", err)
	}
	tB, err := boolField(n.Op(), "transB")
	if err != nil {
		return nil, c.errorf(n, "%v", err)
	}
	a, b := in[0], in[1]
	as, bs := a.shape, b.shape
	if as.Dims() != 2 || (bs.Dims() != 2 && bs.Dims() != 1) {
		return nil, c.errorf(n, "operands of shapes %v and %v (the device multiplies matrices and matrix × vector)", as, bs)
	}
	m, k := as[0], as[1]
	if tA {
		m, k = k, m
	}
	br, bc := 0, 1
	if bs.Dims() == 2 {
		br, bc = bs[0], bs[1]
	} else {
		br, bc = bs[0], 1
		tB = false
	}
	kb, nn := br, bc
	if tB {
		kb, nn = bc, br
	}
	if kb != k || out.size != m*nn {
		return nil, c.errorf(n, "shapes %v and %v (transposed %t, %t) give %v", as, bs, tA, tB, out.shape)
	}
	lda, ldb := as[1], bc
	out.kind = slotComputed
	return func(p *program) error {
		return p.ctx().Sgemm(tA, tB, m, nn, k, 1, p.buf(a), 0, lda, p.buf(b), 0, ldb, 0, p.buf(out), 0, nn)
	}, nil
}

// lowerOuter: gorgonia's outer product of two vectors, an SGEMM with k = 1.
func lowerOuter(c *compiler, n *gorgonia.Node, out *slot, in []*slot) (func(*program) error, error) {
	if err := arity(c, n, in, 2); err != nil {
		return nil, err
	}
	a, b := in[0], in[1]
	m, k := a.size, b.size
	if out.size != m*k {
		return nil, c.errorf(n, "vectors of %d and %d values give %v", m, k, out.shape)
	}
	out.kind = slotComputed
	return func(p *program) error {
		return p.ctx().Sgemm(false, false, m, k, 1, 1, p.buf(a), 0, 1, p.buf(b), 0, k, 0, p.buf(out), 0, k)
	}, nil
}

// reduceShape returns the shape a reduction reads (a scalar as {1}).
func reduceShape(s tensor.Shape) []int {
	if s.IsScalar() {
		return []int{1}
	}
	return []int(s.Clone())
}

func lowerReduce(isMax bool) lowerer {
	return func(c *compiler, n *gorgonia.Node, out *slot, in []*slot) (func(*program) error, error) {
		if err := arity(c, n, in, 1); err != nil {
			return nil, err
		}
		axes, err := intsField(n.Op(), "along")
		if err != nil {
			return nil, c.errorf(n, "%v", err)
		}
		x := in[0]
		shape := reduceShape(x.shape)
		kept := 1
		red := map[int]bool{}
		for _, a := range axes {
			if a < 0 || a >= len(shape) {
				return nil, c.errorf(n, "axis %d of shape %v", a, x.shape)
			}
			red[a] = true
		}
		for i, d := range shape {
			if !red[i] {
				kept *= d
			}
		}
		if kept != out.size {
			return nil, c.errorf(n, "reducing %v over %v gives %d values, the node holds %d", x.shape, axes, kept, out.size)
		}
		out.kind = slotComputed
		if isMax {
			return func(p *program) error { return p.lib().Max(p.buf(x), p.buf(out), shape, axes) }, nil
		}
		return func(p *program) error { return p.lib().Sum(p.buf(x), p.buf(out), shape, axes) }, nil
	}
}

// lowerRepeat: gorgonia's repeatOp (numpy.repeat along one axis; a scalar
// or vector input is extended with axes of size 1, as its InferShape
// does). The repeat count is the output's size along the axis over the
// input's.
func lowerRepeat(c *compiler, n *gorgonia.Node, out *slot, in []*slot) (func(*program) error, error) {
	if len(in) != 2 {
		return nil, c.errorf(n, "%d inputs, want 2", len(in))
	}
	g, x, err := c.repeatGeom(n, out, c.p.slots)
	if err != nil {
		return nil, err
	}
	out.kind = slotComputed
	return func(p *program) error { return p.lib().Repeat(p.buf(x), p.buf(out), g.Outer, g.Dim, g.Inner, g.Rep) }, nil
}

// repeatGeom reads a repeatOp node's geometry (its output slot out) and
// returns it with the slot of the repeated input.
func (c *compiler) repeatGeom(n *gorgonia.Node, out *slot, slots map[*gorgonia.Node]*slot) (opencl.RepeatGeom, *slot, error) {
	var g opencl.RepeatGeom
	ch := device.Children(n)
	if len(ch) != 2 {
		return g, nil, c.errorf(n, "%d inputs, want 2", len(ch))
	}
	along, err := intField(n.Op(), "along")
	if err != nil {
		return g, nil, c.errorf(n, "%v", err)
	}
	x, os := slots[ch[0]], out.shape
	if along < 0 || along >= os.Dims() {
		return g, nil, c.errorf(n, "axis %d of output shape %v", along, os)
	}
	ext := make([]int, os.Dims())
	for i := range ext {
		ext[i] = 1
		if i < x.shape.Dims() {
			ext[i] = x.shape[i]
		}
	}
	for i := range ext {
		if i != along && ext[i] != os[i] {
			return g, nil, c.errorf(n, "input shape %v, output shape %v", x.shape, os)
		}
	}
	dim := ext[along]
	if dim < 1 || os[along]%dim != 0 {
		return g, nil, c.errorf(n, "input shape %v, output shape %v", x.shape, os)
	}
	g = opencl.RepeatGeom{Outer: size(os[:along]), Dim: dim, Inner: size(os[along+1:]), Rep: os[along] / dim}
	if g.Outer*g.Dim*g.Inner != x.size {
		return g, nil, c.errorf(n, "input shape %v, output shape %v", x.shape, os)
	}
	return g, x, nil
}

func lowerTranspose(c *compiler, n *gorgonia.Node, out *slot, in []*slot) (func(*program) error, error) {
	if err := arity(c, n, in, 1); err != nil {
		return nil, err
	}
	perm, err := intsField(n.Op(), "pattern")
	if err != nil {
		return nil, c.errorf(n, "%v", err)
	}
	x := in[0]
	shape := []int(x.shape.Clone())
	if len(perm) != len(shape) {
		return nil, c.errorf(n, "permutation %v of shape %v", perm, x.shape)
	}
	out.kind = slotComputed
	return func(p *program) error { return p.lib().Transpose(p.buf(x), p.buf(out), shape, perm) }, nil
}

// softmaxAxis views shape as outer×dim×inner around the softmax's axis:
// the last axis, the first for a column vector or a 1-D vector (as
// gorgonia's softmaxOp.UsePreallocDo), or the op's own when not −1.
func softmaxAxis(shape tensor.Shape, axis int, forward bool) (outer, dim, inner int, ok bool) {
	if shape.Dims() == 0 {
		return 0, 0, 0, false
	}
	a := shape.Dims() - 1
	if forward && (shape.IsColVec() || (shape.IsVector() && !shape.IsRowVec())) {
		a = 0
	}
	if axis != -1 {
		a = axis
	}
	if a < 0 || a >= shape.Dims() {
		return 0, 0, 0, false
	}
	return size(shape[:a]), shape[a], size(shape[a+1:]), true
}

func lowerSoftmax(c *compiler, n *gorgonia.Node, out *slot, in []*slot) (func(*program) error, error) {
	if err := arity(c, n, in, 1); err != nil {
		return nil, err
	}
	axis, err := intField(n.Op(), "axis")
	if err != nil {
		return nil, c.errorf(n, "%v", err)
	}
	x := in[0]
	outer, dim, inner, ok := softmaxAxis(x.shape, axis, true)
	if !ok {
		return nil, c.errorf(n, "axis %d of shape %v", axis, x.shape)
	}
	out.kind = slotComputed
	return func(p *program) error { return p.lib().Softmax(p.buf(x), p.buf(out), outer, dim, inner) }, nil
}

// lowerSoftmaxDiff: inputs x, y = softmax(x), ∂L/∂y.
func lowerSoftmaxDiff(c *compiler, n *gorgonia.Node, out *slot, in []*slot) (func(*program) error, error) {
	if err := arity(c, n, in, 3); err != nil {
		return nil, err
	}
	axis, err := intField(n.Op(), "axis")
	if err != nil {
		return nil, c.errorf(n, "%v", err)
	}
	y, g := in[1], in[2]
	outer, dim, inner, ok := softmaxAxis(y.shape, axis, false)
	if !ok || g.size != y.size {
		return nil, c.errorf(n, "axis %d of shapes %v, %v", axis, y.shape, g.shape)
	}
	out.kind = slotComputed
	return func(p *program) error { return p.lib().SoftmaxGrad(p.buf(y), p.buf(g), p.buf(out), outer, dim, inner) }, nil
}

func lowerReshape(c *compiler, n *gorgonia.Node, out *slot, in []*slot) (func(*program) error, error) {
	if err := arity(c, n, in, 1); err != nil {
		return nil, err
	}
	if in[0].size != out.size || in[0].kind == slotStmt {
		return nil, c.errorf(n, "reshaping %v to %v", in[0].shape, out.shape)
	}
	c.alias(out, in[0])
	return nil, nil
}

// lowerSize: gorgonia's sizeOp is the input's size along an axis, known
// at compile time.
func lowerSize(c *compiler, n *gorgonia.Node, out *slot, in []*slot) (func(*program) error, error) {
	if err := arity(c, n, in, 1); err != nil {
		return nil, err
	}
	axis, err := intField(n.Op(), "axis")
	if err != nil {
		return nil, c.errorf(n, "%v", err)
	}
	s := in[0].shape
	v := 1
	if !s.IsScalar() {
		if axis < 0 || axis >= s.Dims() {
			return nil, c.errorf(n, "axis %d of shape %v", axis, s)
		}
		v = s[axis]
	}
	c.constant(out, []float32{float32(v)})
	return nil, nil
}

func lowerConstant(c *compiler, n *gorgonia.Node, out *slot, _ []*slot) (func(*program) error, error) {
	cv, ok := n.Op().(interface{ Value() gorgonia.Value })
	if !ok {
		return nil, c.errorf(n, "constant without a value")
	}
	var d []float32
	switch v := cv.Value().Data().(type) {
	case []float32:
		d = append([]float32(nil), v...)
	case float32:
		d = []float32{v}
	default:
		return nil, c.errorf(n, "constant of %T; the OpenCL back end runs float32 graphs", v)
	}
	c.constant(out, d)
	return nil, nil
}

// lowerRead: gorgonia.Read copies its input into a host value after the
// run (as the tape machine's readInstr: into the value already there when
// it has the size, else a fresh tensor).
func lowerRead(c *compiler, n *gorgonia.Node, out *slot, in []*slot) (func(*program) error, error) {
	if err := arity(c, n, in, 1); err != nil {
		return nil, err
	}
	into, err := device.ReadInto(n.Op())
	if err != nil {
		return nil, c.errorf(n, "%v", err)
	}
	out.kind = slotStmt
	x := in[0]
	c.pin(x)
	c.p.post = append(c.p.post, func(p *program) error {
		d := make([]float32, x.size)
		if err := p.buf(x).Read(d); err != nil {
			return fmt.Errorf("reading %s: %w", x.node.Name(), err)
		}
		if cur := *into; cur != nil {
			if dst, ok := cur.Data().([]float32); ok && len(dst) == len(d) {
				copy(dst, d)
				return nil
			}
		}
		if x.shape.IsScalar() {
			*into = gorgonia.NewF32(d[0])
		} else {
			*into = tensor.New(tensor.WithShape(x.shape.Clone()...), tensor.WithBacking(d))
		}
		return nil
	})
	return nil, nil
}

func im2colGeom(c *compiler, n *gorgonia.Node, nchw []int) (opencl.Im2colGeom, error) {
	g := opencl.Im2colGeom{N: nchw[0], C: nchw[1], H: nchw[2], W: nchw[3]}
	for _, f := range []struct {
		name string
		dst  *int
	}{{"h", &g.KH}, {"w", &g.KW}, {"padH", &g.PadH}, {"padW", &g.PadW}, {"strideH", &g.StrideH},
		{"strideW", &g.StrideW}, {"dilationH", &g.DilationH}, {"dilationW", &g.DilationW}} {
		v, err := intField(n.Op(), f.name)
		if err != nil {
			return g, c.errorf(n, "%v", err)
		}
		*f.dst = v
	}
	return g, nil
}

func lowerIm2col(c *compiler, n *gorgonia.Node, out *slot, in []*slot) (func(*program) error, error) {
	if err := arity(c, n, in, 1); err != nil {
		return nil, err
	}
	x := in[0]
	if x.shape.Dims() != 4 {
		return nil, c.errorf(n, "input shape %v, want N×C×H×W", x.shape)
	}
	g, err := im2colGeom(c, n, x.shape)
	if err != nil {
		return nil, err
	}
	if out.size != g.N*g.OutH()*g.OutW()*g.C*g.KH*g.KW {
		return nil, c.errorf(n, "geometry %+v for output shape %v", g, out.shape)
	}
	out.kind = slotComputed
	return func(p *program) error { return p.lib().Im2col(p.buf(x), p.buf(out), g) }, nil
}

func lowerCol2im(c *compiler, n *gorgonia.Node, out *slot, in []*slot) (func(*program) error, error) {
	if err := arity(c, n, in, 1); err != nil {
		return nil, err
	}
	var nchw [4]int
	for i, f := range []string{"unpaddedB", "unpaddedC", "unpaddedH", "unpaddedW"} {
		v, err := intField(n.Op(), f)
		if err != nil {
			return nil, c.errorf(n, "%v", err)
		}
		nchw[i] = v
	}
	g, err := im2colGeom(c, n, nchw[:])
	if err != nil {
		return nil, err
	}
	col := in[0]
	if out.size != g.N*g.C*g.H*g.W || col.size != g.N*g.OutH()*g.OutW()*g.C*g.KH*g.KW {
		return nil, c.errorf(n, "geometry %+v for shapes %v → %v", g, col.shape, out.shape)
	}
	out.kind = slotComputed
	return func(p *program) error { return p.lib().Col2im(p.buf(col), p.buf(out), g) }, nil
}

// maxPoolGeom reads gorgonia's maxPoolOp geometry (also through
// maxPoolDiffOp, which embeds it).
func maxPoolGeom(c *compiler, n *gorgonia.Node, in, out tensor.Shape) (opencl.PoolGeom, error) {
	op := n.Op()
	get := func(name string) (int, error) { return intField(op, name) }
	var g opencl.PoolGeom
	if in.Dims() != 4 || out.Dims() != 4 {
		return g, c.errorf(n, "shapes %v → %v, want N×C×H×W", in, out)
	}
	vals := map[string]int{}
	for _, f := range []string{"h", "w", "padNorth", "padWest", "padSouth", "padEast", "strideH", "strideW"} {
		v, err := get(f)
		if err != nil {
			return g, c.errorf(n, "%v", err)
		}
		vals[f] = v
	}
	explicit, err := boolField(op, "explicitPadding")
	if err != nil {
		return g, c.errorf(n, "%v", err)
	}
	padH, padW := vals["padNorth"], vals["padWest"]
	if explicit {
		padH, padW = vals["padSouth"], vals["padEast"]
	}
	g = opencl.PoolGeom{Planes: in[0] * in[1], H: in[2], W: in[3], KH: vals["h"], KW: vals["w"], PadH: padH, PadW: padW,
		StrideH: vals["strideH"], StrideW: vals["strideW"], OutH: out[2], OutW: out[3]}
	if out[0]*out[1] != g.Planes {
		return g, c.errorf(n, "shapes %v → %v", in, out)
	}
	return g, nil
}

// poolMasks maps a gorgonia maxPoolOp node to its mask value.
type poolMasks map[*gorgonia.Node]*value

func (c *compiler) masks() poolMasks {
	if c.poolMask == nil {
		c.poolMask = poolMasks{}
	}
	return c.poolMask
}

func lowerMaxPool(c *compiler, n *gorgonia.Node, out *slot, in []*slot) (func(*program) error, error) {
	if err := arity(c, n, in, 1); err != nil {
		return nil, err
	}
	x := in[0]
	g, err := maxPoolGeom(c, n, x.shape, out.shape)
	if err != nil {
		return nil, err
	}
	mask := c.aux(n, out.size)
	c.masks()[n] = mask
	out.kind = slotComputed
	return func(p *program) error { return p.lib().MaxPool(p.buf(x), p.buf(out), p.store(mask), g) }, nil
}

// lowerMaxPoolDiff: inputs x, y (the forward op's output), ∂L/∂y; the
// positions are the forward run's mask.
func lowerMaxPoolDiff(c *compiler, n *gorgonia.Node, out *slot, in []*slot) (func(*program) error, error) {
	if err := arity(c, n, in, 3); err != nil {
		return nil, err
	}
	x, y, dy := in[0], in[1], in[2]
	mask, ok := c.masks()[y.node]
	if !ok {
		return nil, c.errorf(n, "its input %s is not a max pool of the program", y.node.Name())
	}
	g, err := maxPoolGeom(c, n, x.shape, y.shape)
	if err != nil {
		return nil, err
	}
	c.readAux(mask, n)
	out.kind = slotComputed
	return func(p *program) error { return p.lib().MaxPoolGrad(p.buf(dy), p.store(mask), p.buf(out), g) }, nil
}

func lowerFCLoss(c *compiler, n *gorgonia.Node, out *slot, in []*slot) (func(*program) error, error) {
	if err := arity(c, n, in, 3); err != nil {
		return nil, err
	}
	op, ok := n.Op().(nn.FCLossOp)
	if !ok {
		return nil, c.errorf(n, "op of type %T, want nn.FCLossOp", n.Op())
	}
	z, r, w := in[0], in[1], in[2]
	if z.shape.Dims() != 2 || r.size != z.size || w.size != z.shape[0] {
		return nil, c.errorf(n, "shapes %v, %v, %v", z.shape, r.shape, w.shape)
	}
	rows, cols := z.shape[0], z.shape[1]
	out.kind = slotComputed
	return func(p *program) error {
		return p.lib().FCLoss(p.buf(z), p.buf(r), p.buf(w), p.buf(out), rows, cols, op.Clamp)
	}, nil
}

func lowerFCLossGrad(c *compiler, n *gorgonia.Node, out *slot, in []*slot) (func(*program) error, error) {
	if err := arity(c, n, in, 4); err != nil {
		return nil, err
	}
	op, ok := n.Op().(*nn.FCLossGradOp)
	if !ok {
		return nil, c.errorf(n, "op of type %T, want *nn.FCLossGradOp", n.Op())
	}
	z, r, w, g := in[0], in[1], in[2], in[3]
	if z.shape.Dims() != 2 || r.size != z.size || w.size != z.shape[0] || g.size != 1 || out.size != z.size {
		return nil, c.errorf(n, "shapes %v, %v, %v, %v", z.shape, r.shape, w.shape, g.shape)
	}
	rows, cols := z.shape[0], z.shape[1]
	out.kind = slotComputed
	return func(p *program) error {
		return p.lib().FCLossGrad(p.buf(z), p.buf(r), p.buf(w), p.buf(g), p.buf(out), rows, cols, op.Clamp)
	}, nil
}

func convGeom(g nn.ConvGeometry, batch int) opencl.ConvGeom {
	return opencl.ConvGeom{N: batch, C: g.C, H: g.H, W: g.W, O: g.O, K: g.K, Pad: g.Pad, Stride: g.Stride}
}

func lowerConv(c *compiler, n *gorgonia.Node, out *slot, in []*slot) (func(*program) error, error) {
	op, ok := n.Op().(interface{ ConvGeometry() nn.ConvGeometry })
	if !ok {
		return nil, c.errorf(n, "op of type %T has no ConvGeometry", n.Op())
	}
	cg := op.ConvGeometry()
	want := 2
	if cg.Bias {
		want = 3
	}
	if err := arity(c, n, in, want); err != nil {
		return nil, err
	}
	x, w := in[0], in[1]
	if x.shape.Dims() != 4 {
		return nil, c.errorf(n, "input shape %v", x.shape)
	}
	g := convGeom(cg, x.shape[0])
	if x.size != g.N*g.C*g.H*g.W || w.size != g.O*g.C*g.K*g.K || out.size != g.N*g.O*g.OutH()*g.OutW() {
		return nil, c.errorf(n, "geometry %+v for shapes %v, %v → %v", g, x.shape, w.shape, out.shape)
	}
	var b *slot
	if cg.Bias {
		b = in[2]
	}
	c.p.convs = append(c.p.convs, g)
	out.kind = slotComputed
	return func(p *program) error {
		var bb *opencl.Buffer
		if b != nil {
			bb = p.buf(b)
		}
		return p.lib().Conv2d(p.buf(x), p.buf(w), bb, p.buf(out), g)
	}, nil
}

func lowerConvGrad(c *compiler, n *gorgonia.Node, out *slot, in []*slot) (func(*program) error, error) {
	op, ok := n.Op().(interface {
		ConvGrad() (nn.ConvGeometry, int, tensor.Shape)
	})
	if !ok {
		return nil, c.errorf(n, "op of type %T has no ConvGrad", n.Op())
	}
	cg, wrt, xs := op.ConvGrad()
	if xs.Dims() != 4 {
		return nil, c.errorf(n, "input shape %v", xs)
	}
	g := convGeom(cg, xs[0])
	c.p.convs = append(c.p.convs, g)
	out.kind = slotComputed
	switch wrt {
	case 0:
		if err := arity(c, n, in, 2); err != nil {
			return nil, err
		}
		w, dy := in[0], in[1]
		return func(p *program) error { return p.lib().Conv2dGradInput(p.buf(w), p.buf(dy), p.buf(out), g) }, nil
	case 1:
		if err := arity(c, n, in, 2); err != nil {
			return nil, err
		}
		x, dy := in[0], in[1]
		return func(p *program) error { return p.lib().Conv2dGradFilter(p.buf(x), p.buf(dy), p.buf(out), g) }, nil
	case 2:
		if err := arity(c, n, in, 1); err != nil {
			return nil, err
		}
		dy := in[0]
		return func(p *program) error { return p.lib().Conv2dGradBias(p.buf(dy), p.buf(out), g) }, nil
	}
	return nil, c.errorf(n, "gradient with respect to input %d", wrt)
}

type pool2Op interface {
	Pool2Geometry() nn.Pool2Geometry
}

func lowerPool2(c *compiler, n *gorgonia.Node, out *slot, in []*slot) (func(*program) error, error) {
	if err := arity(c, n, in, 1); err != nil {
		return nil, err
	}
	op, ok := n.Op().(pool2Op)
	if !ok {
		return nil, c.errorf(n, "op of type %T has no Pool2Geometry", n.Op())
	}
	g := op.Pool2Geometry()
	x := in[0]
	if x.size != g.N*g.C*g.H*g.W || out.size != g.N*g.C*(g.H/2)*(g.W/2) {
		return nil, c.errorf(n, "geometry %+v for shapes %v → %v", g, x.shape, out.shape)
	}
	arg := c.aux(n, out.size)
	c.masks()[n] = arg
	out.kind = slotComputed
	return func(p *program) error {
		return p.lib().MaxPool2(p.buf(x), p.buf(out), p.store(arg), g.N*g.C, g.H, g.W, g.ReLU)
	}, nil
}

func lowerPool2Grad(c *compiler, n *gorgonia.Node, out *slot, in []*slot) (func(*program) error, error) {
	if err := arity(c, n, in, 2); err != nil {
		return nil, err
	}
	op, ok := n.Op().(interface{ Pool2Forward() gorgonia.Op })
	if !ok {
		return nil, c.errorf(n, "op of type %T has no Pool2Forward", n.Op())
	}
	fwd, err := c.forwardNode(n, op.Pool2Forward(), "max pool")
	if err != nil {
		return nil, err
	}
	arg := c.masks()[fwd]
	g := fwd.Op().(pool2Op).Pool2Geometry()
	dy := in[1]
	c.readAux(arg, n)
	out.kind = slotComputed
	return func(p *program) error {
		return p.lib().MaxPool2Grad(p.buf(dy), p.store(arg), p.buf(out), g.N*g.C, g.H, g.W)
	}, nil
}

// lowerDropout: nn.Dropout and its gradient, y = x ⊙ mask with the mask
// computed in the kernel from the key the op holds when the step is
// enqueued (read then, not at compile time: the model's Resample sets it
// before every step). Nothing is uploaded.
func lowerDropout(c *compiler, n *gorgonia.Node, out *slot, in []*slot) (func(*program) error, error) {
	if err := arity(c, n, in, 1); err != nil {
		return nil, err
	}
	op, ok := n.Op().(interface{ DropoutMask() nn.DropoutMask })
	if !ok {
		return nil, c.errorf(n, "op of type %T has no DropoutMask", n.Op())
	}
	x := in[0]
	if x.size != out.size {
		return nil, c.errorf(n, "%d inputs for %d outputs", x.size, out.size)
	}
	out.kind = slotComputed
	return func(p *program) error {
		m := op.DropoutMask()
		return p.lib().Dropout(p.buf(x), p.buf(out), out.size, opencl.DropoutMask{Key0: m.Key[0], Key1: m.Key[1], Layer: m.Layer,
			Threshold: m.Threshold, Scale: float32(m.Scale)})
	}, nil
}

// lowerCropFlip: nn.CropFlip, the appendix's augmentation of the input
// images, one kernel computing each image's draw from the key and first
// row the op holds when the step is enqueued (read then: the method sets
// them before every step and chunk). Nothing but the key and the row
// travels, as kernel arguments.
func lowerCropFlip(c *compiler, n *gorgonia.Node, out *slot, in []*slot) (func(*program) error, error) {
	if err := arity(c, n, in, 1); err != nil {
		return nil, err
	}
	op, ok := n.Op().(interface {
		CropFlipRun() nn.CropFlipRun
		CropFlipShape() (N, C, H, W int)
	})
	if !ok {
		return nil, c.errorf(n, "op of type %T has no CropFlipRun", n.Op())
	}
	x := in[0]
	N, C, H, W := op.CropFlipShape()
	if x.size != out.size || out.size != N*C*H*W {
		return nil, c.errorf(n, "%d inputs for %d outputs of %d×%d×%d×%d", x.size, out.size, N, C, H, W)
	}
	if pv := op.CropFlipRun().PadValues; pv != nil && len(pv) > 4 {
		return nil, c.errorf(n, "padding values for %d channels, the kernel takes at most 4", len(pv))
	}
	out.kind = slotComputed
	return func(p *program) error {
		r := op.CropFlipRun()
		a := opencl.CropFlip{C: C, H: H, W: W} // a key never set: pad 0, no flip, the identity
		if !r.Identity {
			a.Pad, a.FlipThreshold, a.First, a.Key0, a.Key1 = r.Pad, r.FlipThreshold(), uint32(r.First), r.Key[0], r.Key[1]
		}
		if r.PadValues != nil && !r.Identity {
			a.PadValues = make([]float32, len(r.PadValues))
			for i, v := range r.PadValues {
				a.PadValues[i] = float32(v)
			}
		}
		return p.lib().CropFlip(p.buf(x), p.buf(out), out.size, a)
	}, nil
}
