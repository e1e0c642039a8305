package device

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"gorgonia.org/gorgonia"
)

// Kinder is implemented by operations that name their own kind (the fused
// operations of training/nn): a stable name without shapes, such as
// "llpfc.Conv2dIm2colGrad(W)".
type Kinder interface{ Kind() string }

var (
	shapeSuffix = regexp.MustCompile(`\{[-0-9, ]*\}$`)
	trailingNum = regexp.MustCompile(`=?-?[0-9][-+0-9.e]*$`)
)

// OpKind names what an operation computes, without its shapes: two nodes
// of one kind run the same code on a back end. The fused operations of
// training/nn name themselves (Kinder); gorgonia's are named by their type
// and what their String says apart from sizes and constants, for example
// "gorgonia.elemBinOp(⊙)", "gorgonia.linAlgBinOp(A × Bᵀ)",
// "gorgonia.transposeOp(Aᵀ{0, 2, 3, 1})", "gorgonia.constantScalar".
func OpKind(op gorgonia.Op) string {
	if op == nil {
		return ""
	}
	if k, ok := op.(Kinder); ok {
		return k.Kind()
	}
	t := strings.TrimPrefix(fmt.Sprintf("%T", op), "*")
	s := op.String()
	switch t {
	case "gorgonia.constantScalar", "gorgonia.constantTensor", "gorgonia.sizeOp", "gorgonia.reshapeOp":
		return t
	case "gorgonia.maxPoolOp", "gorgonia.maxPoolDiffOp", "gorgonia.im2colOp", "gorgonia.col2imOp":
		return t
	case "gorgonia.transposeOp", "gorgonia.softmaxOp", "gorgonia.softmaxDiffOp", "gorgonia.repeatOp":
		// the permutation and the axis are part of what the op computes
	default:
		s = shapeSuffix.ReplaceAllString(s, "")
		s = trailingNum.ReplaceAllString(s, "")
	}
	s = strings.TrimSuffix(strings.TrimSpace(s), "()")
	s = strings.TrimSpace(strings.TrimSuffix(s, " false"))
	s = strings.TrimSuffix(s, " true") + map[bool]string{true: " same", false: ""}[strings.HasSuffix(s, " true")]
	return t + "(" + s + ")"
}

// Kinds returns the kinds of the operations of the nodes, sorted and
// without repeats.
func Kinds(nodes gorgonia.Nodes) []string {
	seen := map[string]bool{}
	for _, n := range nodes {
		if k := OpKind(n.Op()); k != "" {
			seen[k] = true
		}
	}
	out := make([]string, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Subgraph returns the nodes of g that outs depend on (outs included), in
// an order where every node comes after its inputs.
func Subgraph(g *gorgonia.ExprGraph, outs gorgonia.Nodes) (gorgonia.Nodes, error) {
	sorted, err := gorgonia.Sort(g.SubgraphRoots(outs...))
	if err != nil {
		return nil, err
	}
	for i, j := 0, len(sorted)-1; i < j; i, j = i+1, j-1 { // Sort puts the roots first
		sorted[i], sorted[j] = sorted[j], sorted[i]
	}
	return sorted, nil
}
