package methods

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"math/rand/v2"

	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/loss"
	"github.com/llpfc/llpfc/training/models"
	"github.com/llpfc/llpfc/training/nn"
	"github.com/llpfc/llpfc/training/optim"
	"gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// LLPGANGeneratorOptimizer is the generator's optimizer: Adam with learning
// rate 3e-4, β₁ = 0.5, β₂ = 0.999 (App. `suppsec: exp`, "LLPGAN's
// discriminator", and LLP-GAN's code, which uses the same settings for both
// networks). The discriminator's optimizer is Config.Optimizer.
var LLPGANGeneratorOptimizer = optim.Config{Name: "adam", LR: 3e-4, Beta1: 0.5, Beta2: 0.999}

// LLPGAN is the name of LLP-GAN (App. `suppsec: exp`, "LLPGAN"; Liu et al.,
// "Learning from Label Proportions with Generative Adversarial Networks",
// NeurIPS 2019).
const LLPGAN = "llpgan"

func init() {
	Register(Descriptor{
		Name: LLPGAN, Label: "LLPGAN", Order: 30, Style: 3,
		Paper: "App. `suppsec: exp`, \"LLPGAN\" (Liu et al., NeurIPS 2019)", Code: "Z-Jianxin/LLPFC@1d0cbc5:llpgan.py, llpganlib/train_fun.py",
		Family: FamilyAdversarial, Batch: Bags, DefaultBatch: 1, Model: models.ModelLLPGAND, ModelRole: "discriminator", Images: "llpgan's generator makes images",
		Help:   "LLP-GAN: a discriminator (llpgan-d) trained on the bags' proportions against a generator's images",
		Search: DefaultSearch,
		New:    func(env *Env) (Method, error) { return newGANMethod(env) },
	})
}

// ganMethod trains LLPGAN (App. `suppsec: exp`, "LLPGAN"): for each
// minibatch of Config.BatchSize bags (the paper uses B = 1) it samples
// noise Z ~ U(−1, 1)^100 per instance (LLP-GAN's sample_z), computes the
// generated images g(Z) with the generator fixed, the gradient of L_D with
// respect to the discriminator (the trained model, which must be a
// FeatureModel such as llpgan-d; the trainer applies it with
// Config.Optimizer), and the gradient of L_G with respect to the generator,
// which the method applies itself with LLPGANGeneratorOptimizer. The
// generator and its optimizer are checkpointed through SaveState.
//
// Difference from the reference loop: there the generator's loss is
// computed after the discriminator's update of the same step; here both
// gradients use the discriminator of the start of the step (the trainer
// updates it after Step returns).
//
// All bags must have the same size (the paper's protocol); an epoch has
// ⌊M/B⌋ steps. Streams per epoch e: "llpgan-order", "llpgan-noise",
// "llpgan-augment", "llpgan-dropout".
type ganMethod struct {
	env     *Env
	d       models.FeatureModel
	gen     *models.LLPGANGenerator
	genOpt  device.Optimizer
	genP    [][]float32 // views of the generator's parameters' Go values
	genG    device.Grads
	B, m, n int
	C, D    int

	xReal, xFake, z, avg, props      *gorgonia.Node
	xRealT, xFakeT, zT, avgT, propsT *tensor.Dense
	fake, dLoss, gLoss               *gorgonia.Node
	dGrads, gGrads                   gorgonia.Nodes
	genVM, dVM, gVM                  device.Program

	bags                 []loss.BagRef
	order                []int
	noiseR, augR, dropR  *rand.Rand
	aug                  *nn.Augmentation
	xbuf                 []float32
	dStoch, gStoch       nn.StochasticModel
	hasDStoch, hasGStoch bool
	dBN, gBN             nn.BatchNormModel
	hasDBN, hasGBN       bool
}

func newGANMethod(env *Env) (*ganMethod, error) {
	d, ok := env.Model.(models.FeatureModel)
	if !ok {
		return nil, fmt.Errorf("llpgan: model %q exposes no features f_conv (use llpgan-d)", env.Model.Name())
	}
	if !env.Spec.IsImage() {
		return nil, fmt.Errorf("llpgan: the generator needs image data (Channels, Height, Width)")
	}
	bs := env.Data.Bags.Bags
	if len(bs) == 0 {
		return nil, fmt.Errorf("llpgan: no bags")
	}
	m := &ganMethod{env: env, d: d, B: env.Config.BatchSize, m: len(bs[0].Indices), C: env.Spec.NumClasses, D: env.Spec.InputDim()}
	for _, b := range bs {
		if len(b.Indices) != m.m {
			return nil, fmt.Errorf("llpgan: bag %d has %d instances, bag %d has %d; LLPGAN needs bags of one size", b.ID, len(b.Indices), bs[0].ID, m.m)
		}
		m.bags = append(m.bags, loss.BagRef{Indices: b.Indices, Proportions: b.Proportions})
	}
	if m.B > len(bs) {
		return nil, fmt.Errorf("llpgan: batch size %d bags, but only %d bags", m.B, len(bs))
	}
	m.n = m.B * m.m
	g, dt := env.Graph, env.Spec.DType()
	gen, err := models.NewLLPGANGenerator(g, env.Spec, rng.New(env.Config.Seed, "init-generator"))
	if err != nil {
		return nil, err
	}
	m.gen = gen
	m.xReal, m.xRealT = nn.NewInputNode(g, dt, "llpgan.x", env.Spec.InputShape(m.n))
	m.xFake, m.xFakeT = nn.NewInputNode(g, dt, "llpgan.fake", env.Spec.InputShape(m.n))
	m.z, m.zT = nn.NewInputNode(g, dt, "llpgan.z", tensor.Shape{m.n, models.LLPGANNoiseDim})
	m.avg, m.avgT = nn.NewInputNode(g, dt, "llpgan.avg", tensor.Shape{m.B, m.n})
	m.props, m.propsT = nn.NewInputNode(g, dt, "llpgan.props", tensor.Shape{m.B, m.C})
	avg := make([]float64, m.B*m.n)
	for k := 0; k < m.B; k++ {
		for j := 0; j < m.m; j++ {
			avg[k*m.n+k*m.m+j] = 1 / float64(m.m)
		}
	}
	nn.StoreFloat64(m.avgT, avg)

	// Discriminator loss on real instances and fixed generated images. The
	// batch statistics of the real pass (and of the generator's image pass)
	// feed the running averages; the other passes do not track.
	dRoots := statRoots(d)
	if m.aug, err = nn.NewAugmentation(env.Config.Augment); err != nil {
		return nil, err
	}
	xReal, err := m.aug.Input(m.xReal) // the real images, augmented once for both passes that read them
	if err != nil {
		return nil, err
	}
	zr, err := d.Forward(xReal, true)
	if err != nil {
		return nil, err
	}
	dRoots = statRoots(d)[len(dRoots):]
	setTracking(d, false)
	defer setTracking(d, true)
	zf, err := d.Forward(m.xFake, true)
	if err != nil {
		return nil, err
	}
	if m.dLoss, err = loss.LLPGANDiscriminatorLoss(zr, zf, m.avg, m.props); err != nil {
		return nil, err
	}
	if m.dGrads, err = nn.Grad(m.dLoss, d.Learnables()...); err != nil {
		return nil, fmt.Errorf("llpgan: discriminator gradient: %w", err)
	}
	// Generator: images for the discriminator step, and feature matching.
	gRoots := statRoots(gen)
	if m.fake, err = gen.Forward(m.z, true); err != nil {
		return nil, err
	}
	gRoots = statRoots(gen)[len(gRoots):]
	setTracking(gen, false)
	defer setTracking(gen, true)
	_, fr, err := d.ForwardFeatures(xReal, true)
	if err != nil {
		return nil, err
	}
	_, ff, err := d.ForwardFeatures(m.fake, true)
	if err != nil {
		return nil, err
	}
	if m.gLoss, err = loss.LLPGANGeneratorLoss(fr, ff); err != nil {
		return nil, err
	}
	if m.gGrads, err = nn.Grad(m.gLoss, gen.Learnables()...); err != nil {
		return nil, fmt.Errorf("llpgan: generator gradient: %w", err)
	}
	if err := m.compile(env, gRoots, dRoots); err != nil {
		return nil, err
	}
	be := env.Backend
	for _, p := range gen.Learnables() {
		m.genP = append(m.genP, p.Value().Data().([]float32))
	}
	if err := be.Push(gen.Learnables()...); err != nil {
		return nil, err
	}
	if m.genG, err = be.NewGrads(gen.Learnables()); err != nil {
		return nil, err
	}
	if m.genOpt, err = be.NewOptimizer(LLPGANGeneratorOptimizer, gen.Learnables(), m.genG); err != nil {
		return nil, err
	}
	m.dStoch, m.hasDStoch = env.Model.(nn.StochasticModel)
	m.dBN, m.hasDBN = env.Model.(nn.BatchNormModel)
	var gm nn.Model = gen
	m.gStoch, m.hasGStoch = gm.(nn.StochasticModel)
	m.gBN, m.hasGBN = gm.(nn.BatchNormModel)
	return m, nil
}

// compile compiles the method's three programs on env.Backend: the
// generator's images, the discriminator's loss and gradient, the
// generator's loss and gradient.
func (m *ganMethod) compile(env *Env, gRoots, dRoots gorgonia.Nodes) error {
	g, be := env.Graph, env.Backend
	params := append(append(gorgonia.Nodes(nil), m.d.Learnables()...), m.gen.Learnables()...)
	in := append(nn.Inputs(m.d, m.xReal, m.xFake, m.z, m.avg, m.props), nn.Inputs(m.gen)...)
	opts := func(name string, effects gorgonia.Nodes) device.Options {
		return device.Options{Name: name, Params: params, Inputs: in, Effects: effects}
	}
	var err error
	if m.genVM, err = be.Compile(g, gorgonia.Nodes{m.fake}, opts("LLPGAN generator pass", gRoots)); err != nil {
		return err
	}
	dr := append(gorgonia.Nodes{m.dLoss}, m.dGrads...)
	if m.dVM, err = be.Compile(g, dr, opts("LLPGAN discriminator pass", dRoots)); err != nil {
		m.genVM.Close()
		return err
	}
	if m.gVM, err = be.Compile(g, append(gorgonia.Nodes{m.gLoss}, m.gGrads...), opts("LLPGAN generator loss pass", nil)); err != nil {
		m.genVM.Close()
		m.dVM.Close()
		return err
	}
	return nil
}

func (m *ganMethod) Close() {
	m.genVM.Close()
	m.dVM.Close()
	m.gVM.Close()
}

func (m *ganMethod) BeginEpoch(e int) (int, error) {
	m.order = m.env.Stream("llpgan-order", e).Perm(len(m.bags))
	m.noiseR = m.env.Stream("llpgan-noise", e)
	m.augR = m.env.Stream("llpgan-augment", e)
	m.dropR = m.env.Stream("llpgan-dropout", e)
	return len(m.bags) / m.B, nil
}

func (m *ganMethod) Step(s int, grads device.Grads) (float64, int, error) {
	start, end := s*m.B, (s+1)*m.B
	if end > len(m.order) {
		return 0, 0, fmt.Errorf("step %d beyond the epoch's %d bags", s, len(m.order))
	}
	D, X := m.D, m.env.Data.X
	m.xbuf = m.xbuf[:0]
	props := make([]float64, 0, m.B*m.C)
	for _, i := range m.order[start:end] {
		bag := m.bags[i]
		props = append(props, bag.Proportions...)
		for _, r := range bag.Indices {
			m.xbuf = append(m.xbuf, X[r*D:(r+1)*D]...)
		}
	}
	m.aug.Step(m.augR)
	xs := make([]float64, len(m.xbuf))
	for i, v := range m.xbuf {
		xs[i] = float64(v)
	}
	nn.StoreFloat64(m.xRealT, xs)
	nn.StoreFloat64(m.propsT, props)
	z := make([]float64, m.n*models.LLPGANNoiseDim)
	for i := range z {
		z[i] = 2*m.noiseR.Float64() - 1
	}
	nn.StoreFloat64(m.zT, z)
	if m.hasDStoch {
		m.dStoch.Resample(m.dropR)
	}
	if m.hasGStoch {
		m.gStoch.Resample(m.dropR)
	}

	// 1. g(Z) with g fixed.
	fake, err := runValue(m.genVM, m.fake, nil, nil)
	if err != nil {
		return 0, 0, fmt.Errorf("generator pass: %w", err)
	}
	nn.StoreFloat64(m.xFakeT, fake)

	// 2. ∂L_D/∂θ_f, applied by the trainer.
	dl, err := runValue(m.dVM, m.dLoss, m.dGrads, grads)
	if err != nil {
		return 0, 0, fmt.Errorf("discriminator pass: %w", err)
	}
	loss := dl[0]

	// 3. ∂L_G/∂θ_g, applied here.
	if err := m.genG.Reset(); err != nil {
		return 0, 0, err
	}
	if _, err := runValue(m.gVM, m.gLoss, m.gGrads, m.genG); err != nil {
		return 0, 0, fmt.Errorf("generator loss pass: %w", err)
	}
	if err := m.genOpt.Step(LLPGANGeneratorOptimizer.LR); err != nil {
		return 0, 0, fmt.Errorf("generator update: %w", err)
	}
	if m.hasDBN {
		if err := m.dBN.UpdateRunningStats(); err != nil {
			return 0, 0, err
		}
	}
	if m.hasGBN {
		if err := m.gBN.UpdateRunningStats(); err != nil {
			return 0, 0, err
		}
	}
	return loss, m.n, nil
}

// ganState is the method's checkpointed state: the generator's parameters,
// its batch-norm running statistics and its optimizer.
type ganState struct {
	Params  [][]float32
	Running [][]float32
	Opt     optim.State
}

// runValue runs p, returns out's value as float64 and, when gradNodes is
// set, adds their values to grads; then it releases p's values (the
// three passes are never resident together).
func runValue(p device.Program, out *gorgonia.Node, gradNodes gorgonia.Nodes, grads device.Grads) ([]float64, error) {
	defer p.Release()
	if err := p.Run(); err != nil {
		return nil, err
	}
	v, err := p.Value(out)
	if err != nil {
		return nil, err
	}
	if gradNodes != nil {
		if err := grads.Add(p, gradNodes, 1); err != nil {
			return nil, err
		}
	}
	return nn.ValueData(v), nil
}

// SaveState encodes the generator and its optimizer.
func (m *ganMethod) SaveState() ([]byte, error) {
	if err := m.env.Backend.Pull(m.gen.Learnables()...); err != nil {
		return nil, err
	}
	opt, err := m.genOpt.State()
	if err != nil {
		return nil, err
	}
	st := ganState{Params: m.genP, Opt: opt}
	for _, n := range m.gen.RunningStats() {
		st.Running = append(st.Running, valueF32(n))
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(st); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// LoadState restores what SaveState wrote.
func (m *ganMethod) LoadState(b []byte) error {
	var st ganState
	if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&st); err != nil {
		return fmt.Errorf("llpgan state: %w", err)
	}
	if len(st.Params) != len(m.genP) {
		return fmt.Errorf("llpgan state: %d generator tensors, want %d", len(st.Params), len(m.genP))
	}
	for i := range st.Params {
		if len(st.Params[i]) != len(m.genP[i]) {
			return fmt.Errorf("llpgan state: generator tensor %d has %d values, want %d", i, len(st.Params[i]), len(m.genP[i]))
		}
	}
	run := m.gen.RunningStats()
	if len(st.Running) != len(run) {
		return fmt.Errorf("llpgan state: %d running statistics, want %d", len(st.Running), len(run))
	}
	for i, n := range run {
		dst := n.Value().Data().([]float32)
		if len(st.Running[i]) != len(dst) {
			return fmt.Errorf("llpgan state: running statistic %d has %d values, want %d", i, len(st.Running[i]), len(dst))
		}
	}
	if err := m.genOpt.SetState(st.Opt); err != nil {
		return fmt.Errorf("llpgan state: %w", err)
	}
	for i := range st.Params {
		copy(m.genP[i], st.Params[i])
	}
	for i, n := range run {
		copy(n.Value().Data().([]float32), st.Running[i])
	}
	return m.env.Backend.Push(m.gen.Learnables()...)
}

// statRoots returns a model's batch-statistics Read nodes (none for models
// without batch norm).
func statRoots(m nn.Model) gorgonia.Nodes {
	if bn, ok := m.(nn.BatchNormModel); ok {
		return bn.RunningStatRoots()
	}
	return nil
}

// setTracking switches batch-statistics recording of a BatchNormModel.
func setTracking(m nn.Model, on bool) {
	if bn, ok := m.(nn.BatchNormModel); ok {
		bn.SetTrackRunningStats(on)
	}
}

func valueF32(n *gorgonia.Node) []float32 {
	return append([]float32(nil), n.Value().Data().([]float32)...)
}
