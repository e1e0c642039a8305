package cpu

import (
	"math/rand"
	"runtime"
	"testing"

	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/llpfc/llpfc/training/device"
)

// BenchmarkStemPool: ResNet18's stem pool (3×3, stride 2, padding 1) at
// batch 128 on one thread, gorgonia's ops beside the plan's: the plan's
// forward, without a branch on the data, ≈ 3× cheaper than the same
// comparisons with one (NOTES-pool.md), and its gradient from the kept
// positions what gorgonia's costs (bench/NOTES.md, "L8").
func BenchmarkStemPool(b *testing.B) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	shape := tensor.Shape{128, 64, 16, 16}
	g := gorgonia.NewGraph()
	x := gorgonia.NewTensor(g, tensor.Float32, 4, gorgonia.WithShape(shape...), gorgonia.WithName("x"))
	y, err := gorgonia.MaxPool2D(x, tensor.Shape{3, 3}, []int{1, 1}, []int{2, 2})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := gorgonia.Grad(gorgonia.Must(gorgonia.Sum(y)), x); err != nil {
		b.Fatal(err)
	}
	var diff gorgonia.Op
	for _, n := range g.AllNodes() {
		if device.OpKind(n.Op()) == "gorgonia.maxPoolDiffOp" {
			diff = n.Op()
		}
	}
	d := make([]float32, shape.TotalSize())
	r := rand.New(rand.NewSource(1))
	for i := range d {
		d[i] = r.Float32()
	}
	xv := tensor.New(tensor.WithShape(shape...), tensor.WithBacking(d))
	yv, err := y.Op().Do(xv)
	if err != nil {
		b.Fatal(err)
	}
	dy := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(yv.Shape().Clone()...))
	out := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(yv.Shape().Clone()...))
	dx := tensor.New(tensor.Of(tensor.Float32), tensor.WithShape(shape...))
	pp := poolPositions{}
	for _, c := range []struct {
		name string
		run  func() error
	}{
		{"gorgonia forward", func() error {
			_, err := y.Op().(gorgonia.UsePreallocDoer).UsePreallocDo(out, xv)
			return err
		}},
		{"gorgonia gradient", func() error {
			_, err := diff.(gorgonia.UsePreallocDoer).UsePreallocDo(dx, xv, yv, dy)
			return err
		}},
		{"plan forward", func() error {
			pp.parallelMaxPool("gorgonia.maxPoolOp", y.Op(), out, []gorgonia.Value{xv})
			return nil
		}},
		{"plan gradient", func() error {
			pp.parallelMaxPool("gorgonia.maxPoolDiffOp", diff, dx, []gorgonia.Value{xv, out, dy})
			return nil
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := c.run(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
