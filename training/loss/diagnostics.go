package loss

import "math"

// BagDiagnostics is what a host objective (EasyLLP, CILoss, PVC) saw in its
// Loss calls since its last ResetDiagnostics: the
// counters that tell why a run near chance or diverged did so, for the
// result and the report's trouble section. A field an objective does not
// have stays zero.
type BagDiagnostics struct {
	// Calls is the number of Loss calls (optimizer steps); zero when none.
	Calls int
	// Loss is the sum over the calls of the loss trained (flooded, floored:
	// what the optimizer descended), RawLoss that of the plain objective
	// beside it: EasyLLP's unflooded L; LLP-PVC's exact −Σ_c log P(K_c = k_c)
	// (PoissonBinomialLogProb) weighted as the trained loss, for the "fft"
	// variant the value its floored coefficients stand for; MixBag's loss
	// itself (it has no flooding or floor). Loss/Calls is the mean per step.
	Loss, RawLoss float64
	// ReferenceLoss is the sum over the calls of the loss of a predictor
	// that gives every instance its bag's own proportions and tells no two
	// instances apart (LLP-PVC: −Σ_c log Binomial(k_c; s, k_c/s)), weighted
	// as the trained loss: a trained loss near it met the objective without
	// learning the instances. Zero for the objectives that do not compute it.
	ReferenceLoss float64

	// Terms counts LLP-PVC's class terms −log P(K_c = k_c) (bags × classes)
	// and MixBag's class terms (bags × classes).
	Terms int
	// Floored counts LLP-PVC's terms whose likelihood lies below the floor
	// of the numerics that computed it, where the loss and its gradient are
	// round-off (PVCFloor): always zero for the exact likelihood.
	Floored int
	// Tiny counts LLP-PVC's terms with P(K_c = k_c) < PVCTinyLikelihood
	// (1e-300, out of float64's reach in linear scale), for information: the
	// exact likelihood computes them, a linear-scale one cannot.
	Tiny int
	// Inside counts MixBag's class terms inside their confidence interval
	// (a constant, no gradient).
	Inside int

	// Flooded counts EasyLLP's calls whose loss fell below the flooding
	// level b, so that the step climbed back (a reversed step).
	Flooded int
	// SoftLabels counts EasyLLP's soft labels ỹ_bc seen (bags × classes,
	// one per bag and class, not per instance), SoftNegative those below 0;
	// SoftMin and SoftMax are their extremes (zero when none), SoftSum and
	// SoftSumSq their sum and sum of squares (SoftStd).
	SoftLabels, SoftNegative int
	SoftMin, SoftMax         float64
	SoftSum, SoftSumSq       float64
}

// PVCTinyLikelihood is the likelihood below which LLP-PVC's term is counted
// as Tiny: 1e-300, near float64's smallest normal 2.2e-308.
const PVCTinyLikelihood = 1e-300

// FlooredShare is Floored/Terms (0 when no term).
func (d BagDiagnostics) FlooredShare() float64 { return share(d.Floored, d.Terms) }

// FloodedShare is Flooded/Calls (0 when no call).
func (d BagDiagnostics) FloodedShare() float64 { return share(d.Flooded, d.Calls) }

// SoftStd is the population standard deviation of the soft labels seen (0
// when none).
func (d BagDiagnostics) SoftStd() float64 {
	if d.SoftLabels == 0 {
		return 0
	}
	n := float64(d.SoftLabels)
	m := d.SoftSum / n
	return math.Sqrt(max(d.SoftSumSq/n-m*m, 0))
}

func share(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Diagnosed is a BagObjective that keeps BagDiagnostics: Diagnostics returns
// what its Loss calls saw since the last ResetDiagnostics (or since it was
// made).
type Diagnosed interface {
	Diagnostics() BagDiagnostics
	ResetDiagnostics()
}

// soft adds soft labels to the diagnostics.
func (d *BagDiagnostics) soft(y []float64) {
	for _, v := range y {
		if d.SoftLabels == 0 {
			d.SoftMin, d.SoftMax = v, v
		}
		d.SoftLabels++
		if v < 0 {
			d.SoftNegative++
		}
		d.SoftMin, d.SoftMax = min(d.SoftMin, v), max(d.SoftMax, v)
		d.SoftSum += v
		d.SoftSumSq += v * v
	}
}
