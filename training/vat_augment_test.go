package training

import (
	"errors"
	"fmt"
	"hash"
	"slices"
	"sync"
	"testing"

	"github.com/chewxy/hm"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"

	"github.com/llpfc/llpfc/internal/philox"
	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/device/cpu"
	"github.com/llpfc/llpfc/training/methods"
	"github.com/llpfc/llpfc/training/models"
	"github.com/llpfc/llpfc/training/nn"
)

// augRun is what one run of one model pass read: the pass (the model's
// Forward calls in build order) and the program's raw and augmented input
// images, chunk rows × D each.
type augRun struct {
	pass     int
	raw, aug []float64
}

// augLog collects the runs of every tapped pass.
type augLog struct {
	mu          sync.Mutex
	runs        []augRun
	unaugmented []int // passes whose model input is not an augmented image
}

func (l *augLog) take() []augRun {
	l.mu.Lock()
	defer l.mu.Unlock()
	r := l.runs
	l.runs = nil
	return r
}

// augTapOp records, each time a program runs it, the values of its two
// inputs (the crop-flip op's output and that op's raw input) and outputs
// zeros of the logits' shape, which the tapped model adds to its logits: it
// sits in every program that runs the pass, changes no value, and nothing
// differentiates through it.
type augTapOp struct {
	pass  int
	shape tensor.Shape
	log   *augLog
}

func (o *augTapOp) Arity() int { return 2 }
func (o *augTapOp) Type() hm.Type {
	a := hm.TypeVariable('a')
	t4 := gorgonia.TensorType{Dims: 4, Of: a}
	return hm.NewFnType(t4, t4, gorgonia.TensorType{Dims: 2, Of: a})
}
func (o *augTapOp) InferShape(...gorgonia.DimSizer) (tensor.Shape, error) {
	return o.shape.Clone(), nil
}
func (o *augTapOp) ReturnsPtr() bool      { return false }
func (o *augTapOp) CallsExtern() bool     { return false }
func (o *augTapOp) OverwritesInput() int  { return -1 }
func (o *augTapOp) WriteHash(h hash.Hash) { fmt.Fprintf(h, "test.augTap(%d,%p)", o.pass, o.log) }
func (o *augTapOp) Hashcode() uint32      { return nn.OpHash(o) }
func (o *augTapOp) String() string        { return fmt.Sprintf("augTap(pass %d)", o.pass) }
func (o *augTapOp) Kind() string          { return "test.augTap" }
func (o *augTapOp) DiffWRT(int) []bool    { return []bool{false, false} }
func (o *augTapOp) SymDiff(gorgonia.Nodes, *gorgonia.Node, *gorgonia.Node) (gorgonia.Nodes, error) {
	return nil, errors.New("augTap: no gradient")
}

func (o *augTapOp) Do(vs ...gorgonia.Value) (gorgonia.Value, error) {
	return o.UsePreallocDo(nil, vs...)
}

func (o *augTapOp) UsePreallocDo(prealloc gorgonia.Value, vs ...gorgonia.Value) (gorgonia.Value, error) {
	if len(vs) != 2 {
		return nil, fmt.Errorf("%v: %d inputs, want 2", o, len(vs))
	}
	f64 := func(v gorgonia.Value) ([]float64, error) {
		switch d := v.Data().(type) {
		case []float32:
			out := make([]float64, len(d))
			for i, x := range d {
				out[i] = float64(x)
			}
			return out, nil
		case []float64:
			return slices.Clone(d), nil
		}
		return nil, fmt.Errorf("%v: element type %v", o, v.Dtype())
	}
	aug, err := f64(vs[0])
	if err != nil {
		return nil, err
	}
	raw, err := f64(vs[1])
	if err != nil {
		return nil, err
	}
	o.log.mu.Lock()
	o.log.runs = append(o.log.runs, augRun{pass: o.pass, raw: raw, aug: aug})
	o.log.mu.Unlock()
	out, ok := prealloc.(*tensor.Dense)
	if !ok || out == nil || !out.Shape().Eq(o.shape) {
		out = tensor.New(tensor.Of(vs[0].Dtype()), tensor.WithShape(o.shape.Clone()...))
	}
	switch d := out.Data().(type) { // the arena may hold anything (PoisonFreed)
	case []float32:
		clear(d)
	case []float64:
		clear(d)
	}
	return out, nil
}

// augTapModel is a model whose training-mode passes record the augmented
// images they read (augTapOp on the crop-flip op that feeds the pass:
// the model input itself, or the first operand of a perturbation x + ξd or
// x + r_adv). Its logits are the wrapped model's plus exact zeros.
type augTapModel struct {
	nn.Model
	log    *augLog
	passes int
}

func (m *augTapModel) Forward(x *gorgonia.Node, train bool) (*gorgonia.Node, error) {
	z, err := m.Model.Forward(x, train)
	if err != nil || !train {
		return z, err
	}
	pass := m.passes
	m.passes++
	aug := x
	for depth := 0; aug != nil && device.OpKind(aug.Op()) != "llpfc.CropFlip"; depth++ {
		ch := device.Children(aug)
		if depth == 3 || len(ch) == 0 {
			aug = nil
			break
		}
		aug = ch[0]
	}
	if aug == nil {
		m.log.unaugmented = append(m.log.unaugmented, pass)
		return z, nil
	}
	tap, err := gorgonia.ApplyOp(&augTapOp{pass: pass, shape: z.Shape().Clone(), log: m.log}, aug, device.Children(aug)[0])
	if err != nil {
		return nil, err
	}
	return gorgonia.Add(z, tap)
}

// augTapBNModel is augTapModel over a batch-norm model (its statistics
// methods passed through), so LLP-VAT takes its whole-minibatch-statistics
// path (exactGradient's chunk sweeps).
type augTapBNModel struct {
	*augTapModel
	bn nn.BatchNormModel
}

func (m *augTapBNModel) SetTrackRunningStats(on bool)     { m.bn.SetTrackRunningStats(on) }
func (m *augTapBNModel) UpdateRunningStats() error        { return m.bn.UpdateRunningStats() }
func (m *augTapBNModel) RunningStats() gorgonia.Nodes     { return m.bn.RunningStats() }
func (m *augTapBNModel) RunningStatRoots() gorgonia.Nodes { return m.bn.RunningStatRoots() }

// passName names pass p of LLP-VAT's model passes in build order (VAT's
// graph is built before KL's).
func passName(p, passes int) string {
	if names := []string{"VAT clean", "VAT power iteration", "VAT adversarial", "KL"}; passes == len(names) {
		return fmt.Sprintf("pass %d (%s)", p, names[p])
	}
	return fmt.Sprintf("pass %d", p)
}

// TestLLPVATPassesShareTheAugmentedBatch holds LLP-VAT's augmentation (the
// appendix's random crop and horizontal flip, App. `suppsec: exp`) to what
// its consistency term needs: within a training step, every program that
// runs the model — KL's proportion pass and VAT's clean, power-iteration
// and adversarial passes — reads the same augmented images, so
// L_cons compares predictions on the images L_prop was computed on. Every
// pass is tapped where it runs (augTapModel, CPU back end), and for two
// consecutive steps of one epoch:
//
//	(a) every pass covers every row of the minibatch, with the same pixels;
//	(b) those pixels are nn.ApplyCropFlip of the raw minibatch (the bags in
//	    the "llpvat-order" permutation) with the step's key (the step's draw
//	    of the "llpvat-augment" stream) and the row's place in the
//	    minibatch — whatever chunk the row ran in;
//	(c) the key advances: the next step's key differs, and its images are
//	    not what the previous step's key gives (nor the raw images).
//
// With chunks smaller than the minibatch each chunk must augment its rows
// at their minibatch positions (nn.Augmentation.SetFirst), also on the
// batch-norm path that sweeps the chunks with the whole minibatch's
// statistics (a WRN-10-1). Caught: VAT's chunks augmenting from KL's last
// first row (vat-augment-chunk-row, vat-augment-exact-chunk-row), VAT's
// passes drawing a key of their own (vat-augment-key-per-pass).
func TestLLPVATPassesShareTheAugmentedBatch(t *testing.T) {
	const bags, bagSize, B = 6, 5, 2
	for _, tc := range []struct {
		name        string
		model       string
		side, chunk int
	}{
		{"one chunk", "test-tiny", 4, 1000},
		{"chunks of 3", "test-tiny", 4, 3},
		{"batch norm, chunks of 3", "test-wrn-10-1", 8, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			side := tc.side
			data := imageLLP(t, side, bags, bagSize, 11)
			cfg := baseConfig(MethodLLPVAT)
			cfg.Model = nn.ModelSpec{Name: tc.model}
			cfg.BatchSize, cfg.Epochs, cfg.ChunkSize = B, 1, tc.chunk
			cfg.Augment = PaperCropFlip.Op()
			cfg, err := withDefaults(cfg)
			require.NoError(t, err)
			spec := cfg.Model
			spec.Channels, spec.Height, spec.Width, spec.NumClasses = 1, side, side, 3
			g := gorgonia.NewGraph()
			inner, err := models.NewModel(g, spec, rng.New(1, "init"))
			require.NoError(t, err)
			log := &augLog{}
			model := &augTapModel{Model: inner, log: log}
			var wrapped nn.Model = model
			if bn, ok := inner.(nn.BatchNormModel); ok {
				wrapped = &augTapBNModel{augTapModel: model, bn: bn}
			}
			be := cpu.New()
			env := &MethodEnv{Config: &cfg, Data: data, Spec: spec, Graph: g, Model: wrapped, Backend: be}
			m, err := methods.MustLookup(MethodLLPVAT).New(env)
			require.NoError(t, err)
			defer m.Close()
			require.Empty(t, log.unaugmented, "model passes (build order) whose input is not the augmented images")
			require.GreaterOrEqual(t, model.passes, 4, "model passes built: want KL's and VAT's three")
			_, err = m.BeginEpoch(0)
			require.NoError(t, err)
			grads, err := be.NewGrads(model.Learnables())
			require.NoError(t, err)

			// The oracle's inputs, from the method's documented streams.
			order := env.Stream("llpvat-order", 0).Perm(len(data.Bags.Bags))
			augR := env.Stream("llpvat-augment", 0)
			D := side * side
			op := nn.CropFlip(PaperCropFlip)
			var prevKey uint64
			for s := 0; s < 2; s++ {
				require.NoError(t, grads.Reset())
				_, n, err := m.Step(s, grads)
				require.NoError(t, err)
				runs := log.take()
				var raw []float32
				for _, i := range order[s*B : (s+1)*B] {
					for _, r := range data.Bags.Bags[i].Indices {
						raw = append(raw, data.X[r*D:(r+1)*D]...)
					}
				}
				require.Equal(t, n*D, len(raw), "step %d: instances", s)
				key := augR.Uint64()
				augment := func(key uint64) []float32 {
					y := make([]float32, len(raw))
					nn.ApplyCropFlip(nn.CropFlipRun{CropFlip: op, Key: philox.KeyOf(key)}, raw, y, n, 1, side, side)
					return y
				}
				want := augment(key)
				require.NotEqual(t, raw, want, "step %d: the oracle's augmentation is the identity (the test would hold nothing)", s)

				// seen[pass][row]: the pixels the pass read for minibatch row;
				// wrong[pass]: its rows unlike the oracle, the first described.
				seen := map[int]map[int][]float64{}
				wrong, first := map[int]int{}, map[int]string{}
				for ri, run := range runs {
					rows := len(run.raw) / D
					start := -1
					for st := 0; st < n && start < 0; st++ {
						if rowEq(run.raw[:D], raw[st*D:(st+1)*D]) {
							start = st
						}
					}
					require.GreaterOrEqual(t, start, 0, "step %d run %d (%s): its first raw image is no image of the minibatch", s, ri, passName(run.pass, model.passes))
					valid := min(rows, n-start)
					require.True(t, rowEq(run.raw[:valid*D], raw[start*D:(start+valid)*D]),
						"step %d run %d (%s): raw rows are not minibatch rows %d…%d", s, ri, passName(run.pass, model.passes), start, start+valid-1)
					if seen[run.pass] == nil {
						seen[run.pass] = map[int][]float64{}
					}
					for i := 0; i < valid; i++ {
						row := start + i
						got := run.aug[i*D : (i+1)*D]
						// (b) the oracle, row by row.
						if !rowEq(got, want[row*D:(row+1)*D]) {
							if wrong[run.pass]++; wrong[run.pass] == 1 {
								first[run.pass] = fmt.Sprintf("row %d (in a chunk from row %d) read %v, ApplyCropFlip(step key, row %d) is %v",
									row, start, got, row, want[row*D:(row+1)*D])
							}
						}
						if prev, ok := seen[run.pass][row]; ok && !slices.Equal(prev, got) {
							t.Errorf("step %d, %s: row %d read different pixels in two runs of the step", s, passName(run.pass, model.passes), row)
						}
						seen[run.pass][row] = slices.Clone(got)
					}
				}
				for p := 0; p < model.passes; p++ {
					if wrong[p] > 0 {
						t.Errorf("step %d, %s: %d row reads unlike the oracle; first: %s", s, passName(p, model.passes), wrong[p], first[p])
					}
				}
				// (a) every pass saw every row, with one pass's pixels.
				if len(seen) != model.passes {
					t.Errorf("step %d: %d of the %d model passes ran", s, len(seen), model.passes)
				}
				for p := 0; p < model.passes; p++ {
					if len(seen[p]) != n {
						t.Errorf("step %d: %s read %d of the minibatch's %d rows", s, passName(p, model.passes), len(seen[p]), n)
						continue
					}
					var differ []int
					for row := 0; row < n; row++ {
						if !slices.Equal(seen[p][row], seen[0][row]) {
							differ = append(differ, row)
						}
					}
					if len(differ) > 0 {
						t.Errorf("step %d: %s read other pixels than %s in rows %v", s, passName(p, model.passes), passName(0, model.passes), differ)
					}
				}
				// (c) the key advances.
				if s > 0 {
					require.NotEqual(t, prevKey, key, "step %d: the step key did not advance", s)
					require.NotEqual(t, augment(prevKey), want, "step %d: the previous step's key gives the same images", s)
				}
				prevKey = key
			}
		})
	}
}

// rowEq reports whether a (float64) and b (float32) hold the same values,
// bit for bit after widening.
func rowEq[A, B float32 | float64](a []A, b []B) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if float64(a[i]) != float64(b[i]) {
			return false
		}
	}
	return true
}
