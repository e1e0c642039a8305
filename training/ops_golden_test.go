package training

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/device/cpu"
	"github.com/llpfc/llpfc/training/methods"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

var updateOps = flag.Bool("update", false, "rewrite training/testdata/ops.golden from the graphs the methods compile")

//go:generate go test -count=1 -run ^TestOpListGolden$ -update

// recordingBackend is the CPU back end that records the operation kinds of
// every program compiled on it, by program name.
type recordingBackend struct {
	device.Backend
	ops map[string][]string
}

func (r *recordingBackend) Compile(g *gorgonia.ExprGraph, outs gorgonia.Nodes, opts device.Options) (device.Program, error) {
	p, err := r.Backend.Compile(g, outs, opts)
	if err == nil {
		r.ops[opts.Name] = p.Ops()
	}
	return p, err
}

// opCase is one model × method of the op list: every registered method
// (training/methods) on every classifier model, but LLP-GAN on its own
// discriminator, and one LLPFC algorithm for the three (llpfc-approx and
// llpfc-ideal build llpfc-uniform's graph).
type opCase struct{ model, method string }

func opCases() []opCase {
	var cs []opCase
	for _, d := range methods.All() {
		switch {
		case d.Family == methods.FamilyAdversarial:
			cs = append(cs, opCase{ModelLLPGAND, d.Name})
		case d.Family == methods.FamilyLLPFC && d.Mode != estimators.ModeUniform:
		default:
			for _, model := range []string{ModelMLP, ModelCNN, ModelCNNBN, ModelWRN164, ModelResNet18, ModelVGG16} {
				cs = append(cs, opCase{model, d.Name})
			}
		}
	}
	return cs
}

// opListData is a tiny 3×32×32 training set of 8 bags of 4 (the image size
// the paper's CNNs need), with labels for the supervised ceiling.
func opListData() *TrainData {
	const bags, m, c = 8, 4, 10
	r := rng.New(1, "op-list")
	d := &TrainData{X: make([]float32, bags*m*3*32*32), Channels: 3, Height: 32, Width: 32, Bags: &estimators.BagSet{NumClasses: c}}
	for i := range d.X {
		d.X[i] = r.Float32()
	}
	for b := 0; b < bags; b++ {
		bag := estimators.Bag{ID: b, Size: m, Proportions: make([]float64, c)}
		for i := 0; i < m; i++ {
			bag.Indices = append(bag.Indices, b*m+i)
			bag.Proportions[(b+i)%c] += 1.0 / m
			d.Labels = append(d.Labels, (b+i)%c)
		}
		d.Bags.Bags = append(d.Bags.Bags, bag)
	}
	return d
}

// compiledOps builds c's graphs as Train does (the method's programs and
// the evaluation) on a recording CPU back end and returns the kinds of
// operations of each program. The appendix's augmentation is on (as the
// colour presets train): every training program starts with its
// llpfc.CropFlip, the evaluation has none.
func compiledOps(t *testing.T, c opCase) map[string][]string {
	data := opListData()
	cfg, err := withDefaults(Config{Method: c.method, Model: nn.ModelSpec{Name: c.model}, Optimizer: OptimizerConfig{Name: "sgd", LR: 0.1}, BatchSize: 2, Epochs: 1, ChunkSize: 4,
		Augment: PaperCropFlip.Op()})
	require.NoError(t, err)
	spec := cfg.Model
	spec.Channels, spec.Height, spec.Width, spec.NumClasses, spec.Dtype = 3, 32, 32, 10, tensor.Float32
	be := &recordingBackend{Backend: cpu.New(), ops: map[string][]string{}}
	st, err := buildStepper(be, methods.MustLookup(c.method).New, &cfg, data, spec)
	require.NoError(t, err, "%s × %s", c.model, c.method)
	defer st.Close()
	ev, err := newEvaluator(be, st.graph, st.model, spec, 2)
	require.NoError(t, err)
	ev.Close()
	return be.ops
}

// TestOpListGolden pins the operations each training graph runs, per model
// × method and per program (device.OpKind), in testdata/ops.golden: the
// list a new compute back end must implement, and a change
// detector — a model or loss that starts using a new operation changes
// the file (regenerate with go test ./training -run TestOpListGolden
// -update and review the diff, then make every back end run the new
// operation). The first block is the union over all cases.
func TestOpListGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("builds every paper model's graphs (-short)")
	}
	var body strings.Builder
	all := map[string]bool{}
	for _, c := range opCases() {
		progs := compiledOps(t, c)
		var names []string
		for n := range progs {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(&body, "\n%s × %s\n", c.model, c.method)
		for _, n := range names {
			fmt.Fprintf(&body, "  %s: %s\n", n, strings.Join(progs[n], ", "))
			for _, k := range progs[n] {
				all[k] = true
			}
		}
	}
	var kinds []string
	for k := range all {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	got := "# The operations of every training graph (device.OpKind), by model × method and program: what a\n" +
		"# compute back end must run. Regenerate: go test ./training -run TestOpListGolden -update\n\n" +
		fmt.Sprintf("all (%d kinds)\n", len(kinds))
	for _, k := range kinds {
		got += "  " + k + "\n"
	}
	got += body.String()
	path := filepath.Join("testdata", "ops.golden")
	if *updateOps {
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "no golden file; run with -update")
	assert.Equal(t, string(want), got, "the training graphs' operations changed; regenerate with -update and review the diff")
}

// TestMissingOpStopsBeforeTraining: a back end that cannot run one
// operation of the cnn's graph (its fused convolution) makes Train fail at
// compile time with a *device.MissingOpError naming the operation and the
// program, before any step has changed a parameter.
func TestMissingOpStopsBeforeTraining(t *testing.T) {
	device.Register("test-noconv", func(string) (device.Backend, error) {
		return &limitedBackend{Backend: cpu.New(), missing: "llpfc.Conv2dIm2col"}, nil
	})
	cfg := baseConfig(MethodLLPFCUniform)
	cfg.Model = nn.ModelSpec{Name: ModelCNN}
	cfg.Device = "test-noconv"
	steps := 0
	_, err := Train(t.Context(), cfg, imageLLP(t, 8, 4, 6, 4), func(ProgressEvent) { steps++ })
	var missing *device.MissingOpError
	require.True(t, errors.As(err, &missing), "got %v", err)
	assert.Equal(t, "llpfc.Conv2dIm2col", missing.Op)
	assert.Equal(t, "llpfc step", missing.Program)
	assert.Contains(t, err.Error(), "llpfc.Conv2dIm2col")
	assert.Zero(t, steps, "no progress before the error")

	cfg.Model = nn.ModelSpec{Name: ModelMLP} // no convolution: trains
	_, err = Train(t.Context(), cfg, imageLLP(t, 8, 4, 6, 4), nil)
	assert.NoError(t, err)
}

// limitedBackend is the CPU back end without one operation kind.
type limitedBackend struct {
	device.Backend
	missing string
}

func (l *limitedBackend) Compile(g *gorgonia.ExprGraph, outs gorgonia.Nodes, opts device.Options) (device.Program, error) {
	nodes, err := device.Subgraph(g, outs)
	if err != nil {
		return nil, err
	}
	for _, n := range nodes {
		if device.OpKind(n.Op()) == l.missing {
			return nil, &device.MissingOpError{Backend: "test-noconv", Program: opts.Name, Op: l.missing, Node: n.Name()}
		}
	}
	return l.Backend.Compile(g, outs, opts)
}
