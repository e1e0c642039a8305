package methods

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/training/device"
)

// The LLPFC algorithms' names.
const (
	LLPFCIdeal   = "llpfc-ideal"   // Algorithm 1 (`algo:LLPFC`)
	LLPFCUniform = "llpfc-uniform" // Algorithm 2 (`algo:LLPFC-uniform`)
	LLPFCApprox  = "llpfc-approx"  // Algorithm 3 (`algo:LLPFC-approx`)
)

func init() {
	for _, a := range []struct {
		name, label, paper, help string
		order, style             int
		mode                     estimators.Mode
	}{
		{LLPFCIdeal, "LLPFC-ideal", "Algorithm 1 (`algo:LLPFC`)", "LLPFC, the noisy prior α solved from Γ̂ᵀα = σ̂ on each group (Algorithm 1; needs the grouping assumption)", 100, 8, estimators.ModeIdeal},
		{LLPFCUniform, "LLPFC-uniform", "Algorithm 2 (`algo:LLPFC-uniform`)", "LLPFC, the noisy prior α̂(c) = |b_c|/n of each group's bag sizes (Algorithm 2)", 110, 9, estimators.ModeUniform},
		{LLPFCApprox, "LLPFC-approx", "Algorithm 3 (`algo:LLPFC-approx`)", "LLPFC, the noisy prior α̂ = argmin over the simplex of ‖σ̂ − Γ̂ᵀα‖ (Algorithm 3)", 120, 10, estimators.ModeApprox},
	} {
		mode := a.mode
		Register(Descriptor{
			Name: a.name, Label: a.label, Order: a.order, Style: a.style, Paper: a.paper, Code: "Z-Jianxin/LLPFC@1d0cbc5:llpfc.py, llpfclib/make_groups.py",
			Family: FamilyLLPFC, Mode: mode, Batch: Instances, DefaultBatch: 128, Help: a.help,
			Settings: []*Setting{&RegroupEverySetting, &WeightsSetting, &CompatSetting},
			Search:   DefaultSearch,
			New:      func(env *Env) (Method, error) { return newLLPFC(env, mode) },
		})
	}
}

// The LLPFC algorithms' settings, shared by the three (a table's cells share
// them whatever their method: Shared).
var (
	// RegroupEverySetting is the regrouping period r (Config.RegroupEvery).
	RegroupEverySetting = Setting{Name: SettingRegroupEvery, Kind: KindInt, Default: "0", Min: 0, Max: math.Inf(1), Shared: true,
		Help: "re-partition the bags into groups every R epochs; 0: never, the groups of epoch 0 for the whole run (the appendix: 20, 5 for VGG16; llpfc train's --regroup-every defaults to 20)"}
	// WeightsSetting is the group weighting w (Config.GroupWeights).
	WeightsSetting = Setting{Name: SettingWeights, Kind: KindChoice, Choices: []string{"uniform", "hm", "chvol"}, Default: "uniform", Shared: true,
		Help: "the group weights w: uniform (Section 6), hm (harmonic mean of bag sizes) or chvol (convex-hull volume); llpfc train's flag is --group-weights"}
	// CompatSetting is paper or the authors' code (Config.Compat).
	CompatSetting = Setting{Name: SettingCompat, Kind: KindChoice, Choices: []string{"paper", "original"}, Default: "paper", Shared: true,
		Help: "paper (Algorithms 1–3) or original (the authors' code at commit 1d0cbc5 where it differs: their grouping, weights and minibatch loss; PAPER_MAP.md, \"Paper vs original code\")"}
)

// llpfcMethod trains with the weighted FC loss of Algorithms
// `algo:LLPFC`, `algo:LLPFC-uniform` and `algo:LLPFC-approx` (last line):
// Σ_instances ω_x ℓ_{T̂_g(x)}(f(x), ỹ_x), where estimators.Build gives the
// groups, T̂_g and the instance weights ω (Σ ω = 1). A minibatch of B
// instances uses the unbiased estimate (1/B) Σ_{x∈batch} n·ω_x ℓ(x) of the
// n-instance mean, so with uniform weights and equal bag sizes it is the
// plain minibatch mean of the FC loss. The bags are re-partitioned at epochs
// 0, r, 2r, … ("Implementation Details of LLPFC"); the partition of regroup
// k is drawn from the stream "llpfc-groups/epoch-k·r".
type llpfcMethod struct {
	env        *Env
	opts       estimators.Options
	batch, dim int
	classes    int

	*fcGraph

	regroupedAt int // epoch of the current grouping, −1 if none
	inst        []estimators.Instance
	rows        [][]float32 // per group: T̂ row-major (C×C)
	scale       float64     // n / B
	order       []int
	augRNG      *rand.Rand
	dropRNG     *rand.Rand
}

func newLLPFC(env *Env, mode estimators.Mode) (*llpfcMethod, error) {
	cfg := env.Config
	spec := env.Spec
	m := &llpfcMethod{
		env:         env,
		opts:        estimators.Options{Mode: mode, Weights: cfg.GroupWeights, Compat: cfg.Compat},
		batch:       cfg.BatchSize,
		dim:         spec.InputDim(),
		classes:     spec.NumClasses,
		regroupedAt: -1,
	}
	var err error
	if m.fcGraph, err = newFCGraph(env, "llpfc", cfg.Compat == estimators.CompatOriginal); err != nil {
		return nil, err
	}
	return m, nil
}

// regroup draws the groups of epoch e (0-based; its errors count epochs from
// 1, as the progress lines and the trainer's errors do).
func (m *llpfcMethod) regroup(e int) error {
	red, err := m.grouping(e, m.opts)
	if err != nil {
		return fmt.Errorf("grouping at epoch %d: %w", e+1, err)
	}
	inst, err := red.Instances()
	if err != nil {
		return fmt.Errorf("grouping at epoch %d: %w", e+1, err)
	}
	if len(inst) == 0 {
		return fmt.Errorf("grouping at epoch %d: no instance with positive weight", e+1)
	}
	C := m.classes
	m.rows = m.rows[:0]
	for gi, grp := range red.Groups {
		t := make([]float32, C*C)
		for a := 0; a < C; a++ {
			for b := 0; b < C; b++ {
				t[a*C+b] = float32(grp.T.At(a, b))
			}
		}
		if len(m.rows) != gi {
			return fmt.Errorf("grouping at epoch %d: group order", e+1)
		}
		m.rows = append(m.rows, t)
	}
	var wsum float64
	for _, in := range inst {
		wsum += in.Weight
	}
	if !(wsum > 0) {
		return fmt.Errorf("grouping at epoch %d: instance weights sum to %v", e+1, wsum)
	}
	// Scale so that the weights average 1 over the instances: the minibatch
	// loss is then a mean, an unbiased estimate of the paper's objective
	// (Σω = 1 there). Compat original ignores it: Step divides by each
	// minibatch's weight sum, as the authors' loss_f does.
	m.scale = float64(len(inst)) / wsum / float64(m.batch)
	m.inst = inst
	m.regroupedAt = e
	return nil
}

// MinibatchWeights fills dst with the FC-loss weights of a minibatch whose
// k-th instance has estimator weight w(k). By default each is w(k)·scale,
// scale = n/(Σω·B) for the n instances of the grouping: the minibatch loss is
// then an unbiased estimate of the paper's weighted risk. With
// CompatOriginal they are w(k)/Σ_minibatch w, as the authors' loss_f divides
// the weights by their sum in every minibatch (llpfc.py@1d0cbc5:16), a
// ratio estimate.
func MinibatchWeights(dst []float32, w func(k int) float64, scale float64, compat estimators.Compat) {
	if compat != estimators.CompatOriginal {
		for k := range dst {
			dst[k] = float32(w(k) * scale)
		}
		return
	}
	sum := 0.0
	for k := range dst {
		sum += w(k)
	}
	for k := range dst {
		dst[k] = float32(w(k) / sum)
	}
}

// grouping partitions the bags as at epoch e, from the stream
// "llpfc-groups/epoch-e", with the estimator options opts.
func (m *llpfcMethod) grouping(e int, opts estimators.Options) (*estimators.Reduction, error) {
	return estimators.Build(m.env.Data.Bags, opts, m.env.Stream("llpfc-groups", e))
}

func (m *llpfcMethod) BeginEpoch(e int) (int, error) {
	k := 0 // RegroupEvery 0: never regroup, the groups of epoch 0 throughout
	if r := m.env.Config.RegroupEvery; r > 0 {
		k = e / r * r
	}
	if m.regroupedAt != k {
		if err := m.regroup(k); err != nil {
			return 0, err
		}
	}
	if cap(m.order) < len(m.inst) {
		m.order = make([]int, len(m.inst))
	}
	m.order = m.order[:len(m.inst)]
	for i := range m.order {
		m.order[i] = i
	}
	ord := m.env.Stream("llpfc-order", e)
	ord.Shuffle(len(m.order), func(i, j int) { m.order[i], m.order[j] = m.order[j], m.order[i] })
	if m.env.Config.Augment != nil {
		m.augRNG = m.env.Stream("augment", e)
	}
	m.dropRNG = m.env.Stream("dropout", e)
	return (len(m.order) + m.batch - 1) / m.batch, nil
}

func (m *llpfcMethod) Step(s int, grads device.Grads) (float64, int, error) {
	start := s * m.batch
	end := min(start+m.batch, len(m.order))
	if start >= end {
		return 0, 0, fmt.Errorf("step %d beyond the epoch's %d instances", s, len(m.order))
	}
	x, d, C := m.env.Data.X, m.dim, m.classes
	xb := m.xT.Data().([]float32)
	rb := m.rT.Data().([]float32)
	wb := m.wT.Data().([]float32)
	for i := start; i < end; i++ {
		in := m.inst[m.order[i]]
		k := i - start
		copy(xb[k*d:(k+1)*d], x[in.Index*d:(in.Index+1)*d])
		t := m.rows[in.Group]
		copy(rb[k*C:(k+1)*C], t[in.NoisyLabel*C:(in.NoisyLabel+1)*C])
	}
	n := end - start
	MinibatchWeights(wb[:n], func(k int) float64 { return m.inst[m.order[start+k]].Weight }, m.scale, m.opts.Compat)
	clear(xb[n*d:])
	clear(rb[n*C:])
	clear(wb[n:])
	loss, err := m.run(m.env, n, m.augRNG, m.dropRNG, grads)
	return loss, n, err
}
