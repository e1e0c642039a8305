package optim

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
