package cpu

import (
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// valueBytes returns the bytes an operation reads and writes at least: its
// inputs' and its output's (node's) values, the traffic to memory of an
// operation whose values do not stay in the caches (the step profile's
// bandwidth term, internal/stepprof and training/scaling).
func valueBytes(node *gorgonia.Node, args []gorgonia.Value) int64 {
	var b int64
	for _, a := range args {
		if t, ok := a.(tensor.Tensor); ok {
			b += int64(t.Shape().TotalSize()) * int64(t.Dtype().Size())
		}
	}
	if s := node.Shape(); !s.IsScalar() {
		b += int64(s.TotalSize()) * int64(node.Dtype().Size())
	}
	return b
}
