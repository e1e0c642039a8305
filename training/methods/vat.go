package methods

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/loss"
	"github.com/llpfc/llpfc/training/nn"
)

// LLPVAT is the name of LLP-VAT (App. `suppsec: exp`, "LLPVAT"; Tsai & Lin,
// "Learning from Label Proportions with Consistency Regularization", ACML
// 2020).
const LLPVAT = "llpvat"

func init() {
	Register(Descriptor{
		Name: LLPVAT, Label: "LLPVAT", Order: 20, Style: 2,
		Paper: "App. `suppsec: exp`, \"LLPVAT\" (Tsai & Lin, ACML 2020)", Code: "Z-Jianxin/LLPFC@1d0cbc5:llpvat.py, llpvatlib/train_fun.py",
		Family: FamilyBag, Batch: Bags, DefaultBatch: 2,
		Help: "LLP-VAT: the KL proportion loss plus a virtual-adversarial consistency term (App. suppsec: exp)",
		Settings: []*Setting{&KLScaleSetting, &BNStatsSetting, &ChunkSizeSetting, &VATEpsSetting, &VATXiSetting,
			&VATPowerItersSetting, &VATRampupSetting},
		Search: DefaultSearch,
		New: func(env *Env) (Method, error) {
			vc := env.Config.VAT
			if vc == (loss.VATConfig{}) {
				vc = loss.PaperVATConfig("")
			}
			return newVATMethod(env, vc)
		},
	})
}

// LLP-VAT's own settings (Config.VAT, Config.VATRampup).
var (
	// VATEpsSetting is the perturbation radius ε.
	VATEpsSetting = Setting{Name: SettingVATEps, Kind: KindFloat, Default: "0", Min: 0, Max: math.Inf(1),
		Help: "radius ε of the adversarial perturbation; 0: the appendix's, 6 on CIFAR10 and 1 on the other data sets"}
	// VATXiSetting is the power iteration's finite-difference step ξ.
	VATXiSetting = Setting{Name: SettingVATXi, Kind: KindFloat, Default: "1e-06", Min: 0, Max: math.Inf(1),
		Help: "finite-difference step ξ of the power iteration (the authors' 1e-6; 0: the same)"}
	// VATPowerItersSetting is the number of power iterations.
	VATPowerItersSetting = Setting{Name: SettingVATPowerIters, Kind: KindInt, Default: "1", Min: 0, Max: math.Inf(1),
		Help: "power iterations (the authors' 1; 0: the same)"}
	// VATRampupSetting is the consistency weight's schedule, stated in
	// every llpvat cell (Always).
	VATRampupSetting = Setting{Name: SettingVATRampup, Kind: KindChoice, Choices: []string{"authors", "llpvat"}, Default: "authors", Always: true,
		Help: "schedule of the consistency weight: authors (a constant 0.05, what the LLPFC authors' llpvat.py computes) or llpvat (sigmoid ramp-up over the first 40% of the steps, as LLP-VAT's own code)"}
)

// vatMethod trains with LLP-VAT (App. `suppsec: exp`, "LLPVAT"):
// L = L_prop + w(t)·L_cons over minibatches of Config.BatchSize bags (the
// paper uses B = 2), with L_prop computed by KLChunked and L_cons by VAT,
// both in chunks of at most Config.ChunkSize instances. w(t) =
// Config.VATRampup.Weight at the run's global step. Random streams per epoch e: "llpvat-order" (bag
// order), "llpvat-augment" (Config.Augment's key, one a step, which
// KLChunked's and VAT's programs share: they see the same augmented
// images), "llpvat-dropout" (masks of a
// StochasticModel, resampled before every step), "llpvat-direction" (the
// power iteration's starting directions). Batch-norm running averages are
// folded in after every step from VAT's clean pass.
type vatMethod struct {
	env   *Env
	cfg   loss.VATConfig
	vat   *loss.VAT
	k     *loss.KLChunked
	bags  []loss.BagRef
	order []int

	epoch, steps         int
	augR, dropR, dirR    *rand.Rand
	aug                  *nn.Augmentation // one key a step, shared by KL's and VAT's programs
	xmb                  []float32
	local                []loss.BagRef
	stochastic           nn.StochasticModel
	batchNorm            nn.BatchNormModel
	hasStoch, hasBatchNm bool
}

func newVATMethod(env *Env, cfg loss.VATConfig) (*vatMethod, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	m := &vatMethod{env: env, cfg: cfg}
	maxBag := 0
	for _, b := range env.Data.Bags.Bags {
		if len(b.Indices) == 0 {
			return nil, fmt.Errorf("bag %d has no instance indices", b.ID)
		}
		maxBag = max(maxBag, len(b.Indices))
		m.bags = append(m.bags, loss.BagRef{Indices: b.Indices, Proportions: b.Proportions})
	}
	chunk := min(env.Config.ChunkSize, maxBag*env.Config.BatchSize)
	var err error
	// VAT's graph must be differentiated before KLChunked's: KLChunked
	// differentiates through gorgonia's SoftMax, after which no further Grad
	// can be taken in the graph (see logSumExpRows).
	if m.aug, err = nn.NewAugmentation(env.Config.Augment); err != nil {
		return nil, err
	}
	if m.vat, err = loss.NewVATAugmented(env.Backend, env.Graph, env.Model, env.Spec, chunk, cfg, m.aug); err != nil {
		return nil, err
	}
	if m.k, err = loss.NewBagChunkedAugmented(env.Backend, env.Graph, env.Model, env.Spec, chunk, loss.HeadSoftmax, "KL", m.aug); err != nil {
		m.vat.Close()
		return nil, err
	}
	m.k.SetScale(env.Config.KLScale)
	m.k.SetBNStats(env.Config.BNStats)
	m.vat.SetBNStats(env.Config.BNStats)
	m.stochastic, m.hasStoch = env.Model.(nn.StochasticModel)
	m.batchNorm, m.hasBatchNm = env.Model.(nn.BatchNormModel)
	return m, nil
}

// ReleaseBuffers drops the values of the machines' last runs.
func (m *vatMethod) ReleaseBuffers() {
	m.k.Release()
	m.vat.Release()
}

func (m *vatMethod) Close() {
	m.vat.Close()
	m.k.Close()
}

func (m *vatMethod) BeginEpoch(e int) (int, error) {
	m.epoch = e
	m.order = m.env.Stream("llpvat-order", e).Perm(len(m.bags))
	m.augR = m.env.Stream("llpvat-augment", e)
	m.dropR = m.env.Stream("llpvat-dropout", e)
	m.dirR = m.env.Stream("llpvat-direction", e)
	B := m.env.Config.BatchSize
	m.steps = (len(m.bags) + B - 1) / B
	return m.steps, nil
}

func (m *vatMethod) Step(s int, grads device.Grads) (float64, int, error) {
	B := m.env.Config.BatchSize
	start, end := s*B, min((s+1)*B, len(m.order))
	if start >= end {
		return 0, 0, fmt.Errorf("step %d beyond the epoch's %d bags", s, len(m.order))
	}
	D := m.env.Spec.InputDim()
	X := m.env.Data.X
	m.xmb, m.local = m.xmb[:0], m.local[:0]
	for _, i := range m.order[start:end] {
		bag := m.bags[i]
		ref := loss.BagRef{Proportions: bag.Proportions}
		for _, r := range bag.Indices {
			ref.Indices = append(ref.Indices, len(m.xmb)/D)
			m.xmb = append(m.xmb, X[r*D:(r+1)*D]...)
		}
		m.local = append(m.local, ref)
	}
	n := len(m.xmb) / D
	m.aug.Step(m.augR)
	if m.hasStoch {
		m.stochastic.Resample(m.dropR)
	}
	prop, _, err := m.k.Gradient(m.xmb, m.local, grads)
	if err != nil {
		return prop, n, err
	}
	total := m.env.Config.Epochs * m.steps
	if m.env.Config.Steps > 0 { // a step budget: the ramp-up spans the run's steps
		total = m.env.Config.Steps
	}
	w := m.env.Config.VATRampup.Weight(m.epoch*m.steps+s, total)
	cons, err := m.vat.Gradient(m.xmb, w, m.dirR, grads)
	if err != nil {
		return prop, n, err
	}
	if m.hasBatchNm {
		if err := m.batchNorm.UpdateRunningStats(); err != nil {
			return 0, n, err
		}
	}
	return prop + w*cons, n, nil
}
