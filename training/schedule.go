package training

import (
	"fmt"
	"math"
	"sort"
)

// Schedule gives the learning rate of an epoch (0-based) from the base rate.
// Rates change at epoch boundaries, as with PyTorch schedulers stepped once
// per epoch.
type Schedule interface {
	LR(base float64, epoch int) float64
	String() string
}

// ConstantLR keeps the base rate.
type ConstantLR struct{}

// LR returns base.
func (ConstantLR) LR(base float64, _ int) float64 { return base }
func (ConstantLR) String() string                 { return "constant" }

// MultiStep multiplies the rate by Gamma at each milestone epoch, like
// PyTorch's MultiStepLR: lr(e) = base·Gamma^#{milestones ≤ e}. The appendix's
// "divided by 5 at 60, 120 and 160 epochs" is MultiStep{[60 120 160], 0.2}.
type MultiStep struct {
	Milestones []int   `json:"milestones"`
	Gamma      float64 `json:"gamma"`
}

// LR returns the rate of epoch e.
func (s MultiStep) LR(base float64, e int) float64 {
	k := sort.SearchInts(s.Milestones, e+1) // milestones ≤ e
	return base * math.Pow(s.Gamma, float64(k))
}

func (s MultiStep) String() string { return fmt.Sprintf("multistep%v×%g", s.Milestones, s.Gamma) }

// Validate checks the milestones are increasing and positive and 0 < Gamma.
func (s MultiStep) Validate() error {
	for i, m := range s.Milestones {
		if m <= 0 || (i > 0 && m <= s.Milestones[i-1]) {
			return fmt.Errorf("multistep schedule: milestones %v, want positive and strictly increasing", s.Milestones)
		}
	}
	if !(s.Gamma > 0) {
		return fmt.Errorf("multistep schedule: gamma = %v, want > 0", s.Gamma)
	}
	return nil
}

// CosineWarmRestarts is SGDR (PyTorch's CosineAnnealingWarmRestarts stepped
// per epoch): within a cycle of length T_i (T_0, then ×TMult), at epoch t_cur
// of the cycle, lr = EtaMin + (base − EtaMin)(1 + cos(π t_cur/T_i))/2.
type CosineWarmRestarts struct {
	T0     int     `json:"t0"`
	TMult  int     `json:"t_mult"`
	EtaMin float64 `json:"eta_min"`
}

// LR returns the rate of epoch e.
func (s CosineWarmRestarts) LR(base float64, e int) float64 {
	t0, mult := max(s.T0, 1), max(s.TMult, 1)
	ti, tcur := t0, e
	for tcur >= ti {
		tcur -= ti
		ti *= mult
	}
	return s.EtaMin + (base-s.EtaMin)*(1+math.Cos(math.Pi*float64(tcur)/float64(ti)))/2
}

func (s CosineWarmRestarts) String() string {
	return fmt.Sprintf("cosine-restarts(T0=%d,Tmult=%d,min=%g)", s.T0, s.TMult, s.EtaMin)
}

// Preset is a named training setting of App. `suppsec: exp` ("Architecture
// and Hyperparameters", "Implementation Details of LLPFC").
type Preset struct {
	Name      string
	Model     string
	Optimizer OptimizerConfig
	Schedule  Schedule
	Epochs    int
	// BatchSize is the LLPFC minibatch size in instances.
	BatchSize int
	// Dropout probability of the architecture (0 if it has none).
	Dropout float64
	// RegroupEvery is the LLPFC regrouping period in epochs.
	RegroupEvery int
}

// Presets returns the appendix's settings, by name:
//
//   - wrn16-4-cifar: SGD with Nesterov momentum 0.9, dampening 0, weight
//     decay 5e-4, lr 0.01 divided by 5 at epochs 60, 120, 160; 200 epochs;
//     batch 128; dropout 0.3 ("Wide ResNet-16-4").
//   - wrn16-4-svhn, wrn16-4-emnist: as above but lr divided by 10 at 80 and
//     120; 160 epochs; dropout 0.4.
//   - resnet18: SGD, momentum 0.9, weight decay 1e-4, lr 0.1 divided by 10 at
//     250 and 375; 500 epochs; batch 128 ("ResNet18").
//   - vgg16: SGD, momentum 0.9, weight decay 5e-4, lr 0.01 divided by 10 at
//     19, 37, 56; 74 epochs; batch 256; dropout 0.5; regroup every 5 epochs
//     ("VGG16", "Implementation Details of LLPFC").
//   - llpgan: Adam, lr 3e-4, β = (0.5, 0.999); 3000 epochs; batch 128
//     ("LLPGAN's discriminator").
//
// All regroup every 20 epochs except vgg16 (5).
func Presets() map[string]Preset {
	nest := func(lr, wd float64) OptimizerConfig {
		return OptimizerConfig{Name: "nesterov", LR: lr, Momentum: 0.9, WeightDecay: wd}
	}
	sgd := func(lr, wd float64) OptimizerConfig {
		return OptimizerConfig{Name: "sgd", LR: lr, Momentum: 0.9, WeightDecay: wd}
	}
	wrnSV := func(name string) Preset {
		return Preset{Name: name, Model: "wrn-16-4", Optimizer: nest(0.01, 5e-4), Schedule: MultiStep{[]int{80, 120}, 0.1}, Epochs: 160, BatchSize: 128, Dropout: 0.4, RegroupEvery: 20}
	}
	return map[string]Preset{
		"wrn16-4-cifar":  {Name: "wrn16-4-cifar", Model: "wrn-16-4", Optimizer: nest(0.01, 5e-4), Schedule: MultiStep{[]int{60, 120, 160}, 0.2}, Epochs: 200, BatchSize: 128, Dropout: 0.3, RegroupEvery: 20},
		"wrn16-4-svhn":   wrnSV("wrn16-4-svhn"),
		"wrn16-4-emnist": wrnSV("wrn16-4-emnist"),
		"resnet18":       {Name: "resnet18", Model: "resnet18", Optimizer: sgd(0.1, 1e-4), Schedule: MultiStep{[]int{250, 375}, 0.1}, Epochs: 500, BatchSize: 128, RegroupEvery: 20},
		"vgg16":          {Name: "vgg16", Model: "vgg16", Optimizer: sgd(0.01, 5e-4), Schedule: MultiStep{[]int{19, 37, 56}, 0.1}, Epochs: 74, BatchSize: 256, Dropout: 0.5, RegroupEvery: 5},
		"llpgan":         {Name: "llpgan", Model: "llpgan-d", Optimizer: OptimizerConfig{Name: "adam", LR: 3e-4, Beta1: 0.5, Beta2: 0.999}, Schedule: ConstantLR{}, Epochs: 3000, BatchSize: 128, RegroupEvery: 20},
	}
}
