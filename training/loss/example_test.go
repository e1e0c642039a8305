package loss_test

import (
	"fmt"

	"github.com/llpfc/llpfc/training/loss"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// The FC loss of one instance with logits (0, 0) (so f(x) = (½, ½)), noisy
// label ỹ and row ỹ of T̂ equal to (0.9, 0.2): −log(0.9·½ + 0.2·½) = −log 0.55.
func ExampleFCLoss() {
	g := gorgonia.NewGraph()
	mk := func(name string, s tensor.Shape, v []float64) *gorgonia.Node {
		return gorgonia.NewTensor(g, tensor.Float64, len(s), gorgonia.WithShape(s...), gorgonia.WithName(name),
			gorgonia.WithValue(tensor.New(tensor.WithShape(s...), tensor.WithBacking(v))))
	}
	z := mk("z", tensor.Shape{1, 2}, []float64{0, 0})
	r := mk("R", tensor.Shape{1, 2}, []float64{0.9, 0.2})
	w := mk("w", tensor.Shape{1}, []float64{1})
	l, _ := loss.FCLoss(z, r, w)
	vm := gorgonia.NewTapeMachine(g)
	defer vm.Close()
	if err := vm.RunAll(); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.6f\n", l.Value().Data())
	// Output: 0.597837
}
