package device

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

type kindOp struct{ gorgonia.Op }

func (kindOp) Kind() string { return "llpfc.Test" }

// TestOpKind names gorgonia's operations by what they compute, without
// shapes or constants — two reshapes or sums of different sizes are one
// kind, a sum along another axis or another transposition is another — and
// takes a fused op's own name.
func TestOpKind(t *testing.T) {
	g := gorgonia.NewGraph()
	x := gorgonia.NewMatrix(g, tensor.Float32, gorgonia.WithShape(2, 3), gorgonia.WithName("x"), gorgonia.WithInit(gorgonia.Zeroes()))
	y := gorgonia.NewMatrix(g, tensor.Float32, gorgonia.WithShape(3, 4), gorgonia.WithName("y"), gorgonia.WithInit(gorgonia.Zeroes()))
	must := func(n *gorgonia.Node, err error) *gorgonia.Node {
		require.NoError(t, err)
		return n
	}
	cases := []struct {
		n    *gorgonia.Node
		kind string
	}{
		{must(gorgonia.Add(x, x)), "gorgonia.elemBinOp(+)"},
		{must(gorgonia.Gte(x, x, true)), "gorgonia.elemBinOp(>= same)"},
		{must(gorgonia.Mul(x, y)), "gorgonia.linAlgBinOp(A × B)"},
		{must(gorgonia.Reshape(x, tensor.Shape{3, 2})), "gorgonia.reshapeOp"},
		{must(gorgonia.Reshape(y, tensor.Shape{12})), "gorgonia.reshapeOp"},
		{must(gorgonia.Sum(x, 1)), "gorgonia.sumOp(Σ[1])"},
		{must(gorgonia.Sum(x, 0)), "gorgonia.sumOp(Σ[0])"},
		{must(gorgonia.Transpose(x)), "gorgonia.transposeOp(Aᵀ{1, 0})"},
		{must(gorgonia.Exp(x)), "gorgonia.elemUnaryOp(exp)"},
		{must(gorgonia.Square(x)), "gorgonia.elemUnaryOp(square)"},
		{must(gorgonia.SoftMax(x)), "gorgonia.softmaxOp(Softmax{-1, false})"},
	}
	for _, c := range cases {
		assert.Equal(t, c.kind, OpKind(c.n.Op()), "%v", c.n.Op())
	}
	assert.Equal(t, "llpfc.Test", OpKind(kindOp{}))
	assert.Equal(t, "", OpKind(nil))
	assert.Equal(t, []string{"gorgonia.elemBinOp(+)", "gorgonia.reshapeOp"}, Kinds(gorgonia.Nodes{cases[3].n, cases[0].n, cases[4].n, x}))
}

// TestSubgraphOrder: every node comes after its inputs, and only what the
// outputs depend on is included.
func TestSubgraphOrder(t *testing.T) {
	g := gorgonia.NewGraph()
	x := gorgonia.NewVector(g, tensor.Float64, gorgonia.WithShape(3), gorgonia.WithName("x"), gorgonia.WithInit(gorgonia.Zeroes()))
	a, err := gorgonia.Exp(x)
	require.NoError(t, err)
	b, err := gorgonia.Add(a, x)
	require.NoError(t, err)
	_, err = gorgonia.Neg(x) // not an input of b
	require.NoError(t, err)
	nodes, err := Subgraph(g, gorgonia.Nodes{b})
	require.NoError(t, err)
	require.Len(t, nodes, 3)
	pos := map[*gorgonia.Node]int{}
	for i, n := range nodes {
		pos[n] = i
	}
	assert.Less(t, pos[x], pos[a])
	assert.Less(t, pos[a], pos[b])
}
