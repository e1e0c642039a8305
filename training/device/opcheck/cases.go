package opcheck

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"

	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/nn"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// Cases are one small graph per operation kind the training graphs use
// (odd sizes, scalars beside tensors, every axis and transpose the graphs
// use, batch norm's modes); together they run every kind of
// training/testdata/ops.golden.
func Cases() []Case {
	var cs []Case
	// Element-wise binary ops: equal shapes, a scalar on either side,
	// comparisons with retSame.
	bin := map[string]func(a, b *gorgonia.Node) (*gorgonia.Node, error){
		"add": gorgonia.Add, "sub": gorgonia.Sub, "mul": gorgonia.HadamardProd, "div": gorgonia.HadamardDiv,
		"lt":  func(a, b *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.Lt(a, b, true) },
		"gt":  func(a, b *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.Gt(a, b, true) },
		"lte": func(a, b *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.Lte(a, b, true) },
		"gte": func(a, b *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.Gte(a, b, true) },
		"eq":  func(a, b *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.Eq(a, b, true) },
		"ne":  func(a, b *gorgonia.Node) (*gorgonia.Node, error) { return gorgonia.Ne(a, b, true) },
	}
	for _, name := range slices.Sorted(maps.Keys(bin)) {
		f := bin[name]
		cs = append(cs, Case{Name: "binary " + name, Build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options, After) {
			a := Tensor(g, r, "a", -2, 2, 3, 7)
			b := Tensor(g, r, "b", 0.5, 2, 3, 7)
			d := a.Value().Data().([]float32)
			copy(d[:3], b.Value().Data().([]float32)[:3]) // some ties for the comparisons
			s := gorgonia.NewScalar(g, tensor.Float32, gorgonia.WithName("s"), gorgonia.WithValue(float32(0.75)))
			return gorgonia.Nodes{Must(f(a, b)), Must(f(a, s)), Must(f(s, b)), Must(f(s, gorgonia.NewConstant(float32(1.5)))), Must(f(a, gorgonia.NewConstant(float32(1))))},
				device.Options{Inputs: gorgonia.Nodes{a, b}}, nil
		}})
	}
	un := map[string]struct {
		f      func(*gorgonia.Node) (*gorgonia.Node, error)
		lo, hi float64
	}{
		"abs": {gorgonia.Abs, -3, 3}, "sign": {gorgonia.Sign, -3, 3}, "exp": {gorgonia.Exp, -5, 5},
		"ln": {gorgonia.Log, 0.01, 9}, "inv": {gorgonia.Inverse, 0.1, 3}, "neg": {gorgonia.Neg, -3, 3},
		"sigmoid": {gorgonia.Sigmoid, -20, 20}, "softplus": {gorgonia.Softplus, -20, 20}, "sqrt": {gorgonia.Sqrt, 0, 9},
		"square": {gorgonia.Square, -3, 3}, "tanh": {gorgonia.Tanh, -4, 4}, "log1p": {gorgonia.Log1p, -0.5, 9},
	}
	for _, name := range slices.Sorted(maps.Keys(un)) {
		u := un[name]
		cs = append(cs, Case{Name: "unary " + name, Build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options, After) {
			x := Tensor(g, r, "x", u.lo, u.hi, 5, 9)
			if name == "sign" {
				x.Value().Data().([]float32)[4] = 0
			}
			s := gorgonia.NewScalar(g, tensor.Float32, gorgonia.WithName("s"), gorgonia.WithValue(float32(u.lo+0.37*(u.hi-u.lo))))
			return gorgonia.Nodes{Must(u.f(x)), Must(u.f(s))}, device.Options{Inputs: gorgonia.Nodes{x}}, nil
		}})
	}
	cs = append(cs,
		Case{Name: "matmul and its gradients", Build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options, After) {
			a := Tensor(g, r, "a", -1, 1, 5, 7)
			b := Tensor(g, r, "b", -1, 1, 7, 3)
			v := Tensor(g, r, "v", -1, 1, 7)
			ab := Must(gorgonia.Mul(a, b))
			av := Must(gorgonia.Mul(a, v))
			cost := Must(gorgonia.Add(WeightedSum(g, r, ab), WeightedSum(g, r, av)))
			return append(gorgonia.Nodes{ab, av}, Grads(cost, a, b)...), device.Options{Params: gorgonia.Nodes{a, b}, Inputs: gorgonia.Nodes{v}}, nil
		}},
		Case{Name: "dense layers: bias and ReLU (fused on the device) and their gradients", Build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options, After) {
			// what nn.Dense and gorgonia.Rectify build: Repeat(b) + x·W, then
			// (a ≥ 0) ⊙ a; a second layer whose pre-activation is also read
			// elsewhere (not inlined) and a bias without an activation
			x := Tensor(g, r, "x", -1, 1, 6, 5)
			w1, b1 := Tensor(g, r, "w1", -1, 1, 5, 7), Tensor(g, r, "b1", -0.5, 0.5, 1, 7)
			w2, b2 := Tensor(g, r, "w2", -1, 1, 7, 4), Tensor(g, r, "b2", -0.5, 0.5, 1, 4)
			h := Must(gorgonia.Rectify(Must(gorgonia.BroadcastAdd(Must(gorgonia.Mul(x, w1)), b1, nil, []byte{0}))))
			a2 := Must(gorgonia.BroadcastAdd(Must(gorgonia.Mul(h, w2)), b2, nil, []byte{0}))
			h2 := Must(gorgonia.Rectify(a2))
			z := Must(gorgonia.Add(h2, Must(gorgonia.Square(a2))))
			params := gorgonia.Nodes{w1, b1, w2, b2}
			return append(gorgonia.Nodes{z}, Grads(WeightedSum(g, r, z), params...)...), device.Options{Params: params, Inputs: gorgonia.Nodes{x}}, nil
		}},
		Case{Name: "sum and max along axes", Build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options, After) {
			// (gorgonia v0.9.18's own Σ[2] of a 4-D tensor whose last axis is
			// longer than 1 is wrong: TestSumAlongAMiddleAxis)
			x := Tensor(g, r, "x", -1, 1, 3, 5, 7, 2)
			x3 := Tensor(g, r, "x3", -1, 1, 3, 5, 7)
			m := Tensor(g, r, "m", -1, 1, 9, 13)
			outs := gorgonia.Nodes{Must(gorgonia.Max(m, 1)), Must(gorgonia.Sum(m, 0, 1)), Must(gorgonia.Sum(m, 1)), Must(gorgonia.Sum(x3, 2))}
			for _, a := range []int{0, 1, 3} {
				outs = append(outs, Must(gorgonia.Sum(x, a)))
			}
			return outs, device.Options{Inputs: gorgonia.Nodes{x, x3, m}}, nil
		}},
		Case{Name: "repeat (broadcasts) and their gradients", Build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options, After) {
			x := Tensor(g, r, "x", -1, 1, 2, 3, 5, 7)
			c := Tensor(g, r, "c", -1, 1, 1, 3, 1, 1)
			m := Tensor(g, r, "m", -1, 1, 4, 5)
			row := Tensor(g, r, "row", -1, 1, 1, 5)
			col := Tensor(g, r, "col", -1, 1, 4, 1)
			y1 := Must(gorgonia.BroadcastAdd(x, c, nil, []byte{0, 2, 3}))
			y2 := Must(gorgonia.BroadcastHadamardProd(m, row, nil, []byte{0}))
			y3 := Must(gorgonia.BroadcastSub(m, col, nil, []byte{1}))
			cost := Must(gorgonia.Add(WeightedSum(g, r, y1), Must(gorgonia.Add(WeightedSum(g, r, y2), WeightedSum(g, r, y3)))))
			return append(gorgonia.Nodes{y1, y2, y3}, Grads(cost, c, row, col)...), device.Options{Params: gorgonia.Nodes{c, row, col}, Inputs: gorgonia.Nodes{x, m}}, nil
		}},
		Case{Name: "transpose", Build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options, After) {
			x := Tensor(g, r, "x", -1, 1, 2, 3, 5, 7)
			m := Tensor(g, r, "m", -1, 1, 4, 5)
			return gorgonia.Nodes{Must(gorgonia.Transpose(m)), Must(gorgonia.Transpose(x, 0, 2, 3, 1)), Must(gorgonia.Transpose(x, 0, 3, 1, 2))},
				device.Options{Inputs: gorgonia.Nodes{x, m}}, nil
		}},
		Case{Name: "softmax and its gradient", Build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options, After) {
			z := Tensor(g, r, "z", -4, 4, 6, 11)
			p := Must(gorgonia.SoftMax(z))
			return append(gorgonia.Nodes{p}, Grads(WeightedSum(g, r, p), z)...), device.Options{Params: gorgonia.Nodes{z}}, nil
		}},
		Case{Name: "reshape, size, constants, mean", Build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options, After) {
			x := Tensor(g, r, "x", -1, 1, 3, 4)
			k := gorgonia.NewConstant(tensor.New(tensor.WithShape(4, 3), tensor.WithBacking([]float32{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})))
			// (the CPU's tape may overwrite a reshaped input in place: reshape a value)
			y := Must(gorgonia.Reshape(Must(gorgonia.Square(x)), tensor.Shape{4, 3}))
			z := Must(gorgonia.HadamardProd(y, k))
			return gorgonia.Nodes{z, Must(gorgonia.Mean(x, 1)), Must(gorgonia.SizeOf(1, x))}, device.Options{Inputs: gorgonia.Nodes{x}}, nil
		}},
		Case{Name: "gorgonia conv (im2col, col2im) and its gradients", Build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options, After) {
			x := Tensor(g, r, "x", -1, 1, 2, 3, 7, 5)
			w := Tensor(g, r, "w", -1, 1, 4, 3, 3, 3)
			y := Must(gorgonia.Conv2d(x, w, tensor.Shape{3, 3}, []int{1, 1}, []int{2, 1}, []int{1, 1}))
			return append(gorgonia.Nodes{y}, Grads(WeightedSum(g, r, y), x, w)...), device.Options{Params: gorgonia.Nodes{x, w}}, nil
		}},
		Case{Name: "gorgonia max pool and its gradient", Build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options, After) {
			x := Tensor(g, r, "x", -1, 1, 2, 3, 9, 7)
			y := Must(gorgonia.MaxPool2D(x, tensor.Shape{3, 3}, []int{1, 1}, []int{2, 2}))
			return append(gorgonia.Nodes{y}, Grads(WeightedSum(g, r, y), x)...), device.Options{Params: gorgonia.Nodes{x}}, nil
		}},
	)
	for _, clamp := range []bool{false, true} {
		cs = append(cs, Case{Name: fmt.Sprintf("FC loss (clamp %t) and its gradient", clamp), Build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options, After) {
			z := Tensor(g, r, "z", -3, 3, 7, 5)
			rows := Tensor(g, r, "R", 0, 1, 7, 5)
			w := Tensor(g, r, "wts", 0, 1, 7)
			w.Value().Data().([]float32)[6] = 0 // a padding row
			if clamp {
				rows.Value().Data().([]float32)[0] = 0
			}
			l := Must(gorgonia.ApplyOp(nn.FCLossOp{Clamp: clamp}, z, rows, w))
			return append(gorgonia.Nodes{l}, Grads(l, z)...), device.Options{Params: gorgonia.Nodes{z}, Inputs: gorgonia.Nodes{rows, w}}, nil
		}})
	}
	for _, bias := range []bool{false, true} {
		cs = append(cs, Case{Name: fmt.Sprintf("Conv2dIm2col (bias %t) and its gradients", bias), Build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options, After) {
			x := Tensor(g, r, "x", -1, 1, 3, 2, 7, 5)
			w := Tensor(g, r, "w", -1, 1, 3, 2, 3, 3)
			params := gorgonia.Nodes{x, w}
			var b *gorgonia.Node
			if bias {
				b = Tensor(g, r, "b", -1, 1, 1, 3, 1, 1)
				params = append(params, b)
			}
			y := Must(nn.Conv2dIm2col(x, w, b, 1, 2))
			return append(gorgonia.Nodes{y}, Grads(WeightedSum(g, r, y), params...)...), device.Options{Params: params}, nil
		}})
	}
	for _, relu := range []bool{false, true} {
		cs = append(cs, Case{Name: fmt.Sprintf("MaxPool2 (relu %t) and its gradient", relu), Build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options, After) {
			x := Tensor(g, r, "x", -1, 1, 2, 3, 7, 5)
			y := Must(nn.MaxPool2(x, relu))
			return append(gorgonia.Nodes{y}, Grads(WeightedSum(g, r, y), x)...), device.Options{Params: gorgonia.Nodes{x}}, nil
		}})
	}
	cs = append(cs, Case{Name: "dropout (masks drawn where it runs) and its gradient", Build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options, After) {
		// two layers of one key (4-D, 2-D; sizes that leave a last Philox
		// block of 2 and 1 values), one of a key never set (the identity)
		x := Tensor(g, r, "x", -1, 1, 2, 3, 7, 5)
		m := Tensor(g, r, "m", -1, 1, 5, 9)
		key, unset := nn.NewDropoutKey(), nn.NewDropoutKey()
		key.Set(r.Uint64())
		y1 := Must(nn.Dropout(x, 0.3, key, 0))
		y2 := Must(nn.Dropout(m, 0.5, key, 1))
		y3 := Must(nn.Dropout(m, 0.5, unset, 0))
		cost := Must(gorgonia.Add(WeightedSum(g, r, y1), Must(gorgonia.Add(WeightedSum(g, r, y2), WeightedSum(g, r, y3)))))
		return append(gorgonia.Nodes{y1, y2, y3}, Grads(cost, x, m)...), device.Options{Params: gorgonia.Nodes{x, m}}, nil
	}})
	cs = append(cs, cropFlipCase())
	cs = append(cs, bnCases()...)
	cs = append(cs, Case{Name: "read", Build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options, After) {
		x := Tensor(g, r, "x", -1, 1, 3, 4)
		y := Must(gorgonia.Square(x))
		v := new(gorgonia.Value)
		rd := gorgonia.Read(y, v)
		return gorgonia.Nodes{y, rd}, device.Options{Inputs: gorgonia.Nodes{x}}, func(device.Backend) ([][]float64, error) { return [][]float64{nn.ValueData(*v)}, nil }
	}})
	return cs
}

// bnCases: the fused training-mode batch norm (with and without ReLU,
// 4-D and 2-D), its gradients and recorded statistics; the evaluation
// mode; the unfused layer without γ (gorgonia.Read records its statistics).
func bnCases() []Case {
	var cs []Case
	for _, dims := range []int{4, 2} {
		for _, relu := range []bool{false, true} {
			cs = append(cs, Case{Name: fmt.Sprintf("batch norm %d-D (relu %t) and its gradients", dims, relu),
				Build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options, After) {
					shape := []int{3, 4, 3, 5}
					if dims == 2 {
						shape = []int{5, 4}
					}
					x := Tensor(g, r, "x", -2, 3, shape...)
					b := nn.NewBatchNorm(g, tensor.Float32, "bn", 4, dims, 0.1, true)
					Randomize(r, b.Gamma, 0.5, 1.5)
					Randomize(r, b.Beta, -0.5, 0.5)
					f := b.Forward
					if relu {
						f = b.ForwardReLU
					}
					y := Must(f(x, true, true))
					gs := Grads(WeightedSum(g, r, y), x, b.Gamma, b.Beta)
					return append(gorgonia.Nodes{y}, gs...), device.Options{Params: gorgonia.Nodes{x, b.Gamma, b.Beta}}, runningAfterUpdate(b)
				}})
		}
	}
	for _, relu := range []bool{false, true} {
		cs = append(cs, Case{Name: fmt.Sprintf("batch norm evaluation (relu %t)", relu), Build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options, After) {
			x := Tensor(g, r, "x", -2, 3, 3, 4, 3, 5)
			b := nn.NewBatchNorm(g, tensor.Float32, "bn", 4, 4, 0.1, true)
			Randomize(r, b.Gamma, 0.5, 1.5)
			Randomize(r, b.Beta, -0.5, 0.5)
			Randomize(r, b.RunMean, -1, 1)
			Randomize(r, b.RunVar, 0.2, 2)
			f := b.Forward
			if relu {
				f = b.ForwardReLU
			}
			return gorgonia.Nodes{Must(f(x, false, false))}, device.Options{Params: gorgonia.Nodes{b.Gamma, b.Beta}, Inputs: gorgonia.Nodes{x, b.RunMean, b.RunVar}}, nil
		}})
	}
	cs = append(cs, Case{Name: "batch norm without γ (gorgonia.Read records the statistics)", Build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options, After) {
		x := Tensor(g, r, "x", -2, 3, 3, 4, 3, 5)
		b := nn.NewBatchNorm(g, tensor.Float32, "bn", 4, 4, 0.1, false)
		Randomize(r, b.Beta, -0.5, 0.5)
		y := Must(b.Forward(x, true, true))
		outs := append(gorgonia.Nodes{y}, Grads(WeightedSum(g, r, y), x, b.Beta)...)
		return append(outs, b.RecordRoots()...), device.Options{Params: gorgonia.Nodes{x, b.Beta}}, runningAfterUpdate(b)
	}})
	return cs
}

// runningAfterUpdate folds b's recorded statistics into its running
// averages, as UpdateRunningStats after a step, and returns them.
func runningAfterUpdate(b *nn.BatchNorm) After {
	return func(be device.Backend) ([][]float64, error) {
		if err := b.Update(); err != nil {
			return nil, err
		}
		if err := be.Pull(device.Held(be, gorgonia.Nodes{b.RunMean, b.RunVar})...); err != nil {
			return nil, err
		}
		return [][]float64{nn.ValueData(b.RunMean.Value()), nn.ValueData(b.RunVar.Value())}, nil
	}
}

// cropFlipCase: the appendix's crop-and-flip augmentation (nn.CropFlip),
// drawn where it runs, bit for bit: the paper's pad 4 with three channels'
// padding values and a first row past 0 (a chunk's), an odd image size
// with a pad wider than it (whole rows and columns of padding), every
// image mirrored, and a key never set (the identity).
func cropFlipCase() Case {
	return Case{Name: "crop-and-flip augmentation (drawn where it runs)", Exact: true, Build: func(g *gorgonia.ExprGraph, r *rand.Rand) (gorgonia.Nodes, device.Options, After) {
		x := Tensor(g, r, "x", -2, 2, 9, 3, 8, 8)
		s := Tensor(g, r, "s", -2, 2, 5, 1, 7, 5)
		key, mirror, unset := nn.NewCropFlipKey(), nn.NewCropFlipKey(), nn.NewCropFlipKey()
		key.Set(r.Uint64())
		key.SetFirst(37)
		mirror.Set(r.Uint64())
		paper := nn.CropFlip{Pad: 4, FlipProb: 0.5, PadValues: []float64{-1.5, 0.25, 3}}
		y1 := Must(paper.Apply(x, key))
		y2 := Must(nn.CropFlip{Pad: 9, FlipProb: 0.5}.Apply(s, key))
		y3 := Must(nn.CropFlip{Pad: 1, FlipProb: 1}.Apply(s, mirror))
		y4 := Must(paper.Apply(x, unset))
		return gorgonia.Nodes{y1, y2, y3, y4}, device.Options{Inputs: gorgonia.Nodes{x, s}}, nil
	}}
}
