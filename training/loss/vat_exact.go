package loss

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/llpfc/llpfc/training/device"
	"github.com/llpfc/llpfc/training/nn"
)

// exactGradient is Gradient with every pass normalized by the whole
// minibatch's batch-norm statistics, as LLP-VAT's code computes them (the
// concatenated bags go through the network at once, in training mode, for
// the clean, the probing and the adversarial pass). Each pass runs over the
// chunks as a bnSweep: statistics sweeps first, then, for the two passes
// that are differentiated, adjoint sweeps; so p, the direction d and the
// parameters' gradient are those of one pass over the minibatch, in memory
// bounded by the chunk plus the minibatch's n×C predictions and n×D
// directions (TestVATExactBatchNorm).
func (v *VAT) exactGradient(x []float32, weight float64, rng *rand.Rand, grads device.Grads) (float64, error) {
	n, D, C := len(x)/v.dim, v.dim, v.classes
	defer func() {
		v.cleanBN.Release()
		v.probeBN.Release()
		v.advBN.Release()
	}()
	st := &vatState{x: make([]float64, n*D), p: make([]float64, n*C), d: make([]float64, n*D), wi: 1 / float64(n)}
	for i, val := range x {
		st.x[i] = float64(val)
	}
	// 1. Fixed predictions over the minibatch's clean statistics.
	if err := v.cleanBN.Statistics(func() error { return v.sweepChunks(st, v.clean, v.cleanBN, nil) }); err != nil {
		return 0, fmt.Errorf("VAT clean pass: %w", err)
	}
	err := v.sweepChunks(st, v.clean, v.cleanBN, func(start, end int) error {
		p, err := v.clean.Value(v.probs)
		copy(st.p[start*C:end*C], nn.ValueData(p))
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("VAT clean pass: %w", err)
	}
	var negEntropy float64 // Σ_i w_i Σ_c p log p
	for _, q := range st.p {
		if q > 0 {
			negEntropy += st.wi * q * math.Log(q)
		}
	}
	// 2. Power iteration, each probe differentiated through the statistics.
	for i := range st.d {
		st.d[i] = rng.NormFloat64()
	}
	normalizeRows(st.d, nil, D)
	for it := 0; it < v.cfg.PowerIters; it++ {
		next := make([]float64, n*D)
		err := v.exactPass(st, v.probe, v.probeBN, func(start, end int) error {
			gd, err := v.probe.Value(v.gradD)
			copy(next[start*D:end*D], nn.ValueData(gd))
			return err
		})
		if err != nil {
			return 0, fmt.Errorf("VAT power iteration %d: %w", it, err)
		}
		normalizeRows(next, st.d, D)
		st.d = next
	}
	// 3. Adversarial pass: r_adv = ε·d, the parameters' gradient.
	st.r = st.d
	for i := range st.r {
		st.r[i] *= v.cfg.Eps
	}
	var ce float64
	err = v.exactPass(st, v.adv, v.advBN, func(start, end int) error {
		c, err := v.adv.Value(v.cons)
		if err != nil {
			return err
		}
		ce += nn.ValueData(c)[0]
		return grads.Add(v.adv, v.grads, weight)
	})
	if err != nil {
		return 0, fmt.Errorf("VAT adversarial pass: %w", err)
	}
	return ce + negEntropy, nil
}

// vatState is the minibatch-wide data of exactGradient, indexed by
// instance: inputs, fixed predictions, direction, perturbation.
type vatState struct {
	x, p, d, r []float64
	wi         float64
}

// exactPass runs a differentiated pass (probe or adversarial) with the
// minibatch's statistics: statistics sweeps, adjoint sweeps, then the
// sweep whose gradients after reads.
func (v *VAT) exactPass(st *vatState, vm device.Program, sw *nn.BNSweep, after func(start, end int) error) error {
	if err := sw.Statistics(func() error { return v.sweepChunks(st, vm, sw, nil) }); err != nil {
		return err
	}
	if err := sw.Adjoints(func() error { return v.sweepChunks(st, vm, sw, nil) }); err != nil {
		return err
	}
	return v.sweepChunks(st, vm, sw, after)
}

// sweepChunks loads each chunk of the minibatch (inputs, weights 1/n on
// its instance rows, predictions, direction, perturbation), runs vm, calls
// after (if set) with the chunk's range, and releases vm's values.
func (v *VAT) sweepChunks(st *vatState, vm device.Program, sw *nn.BNSweep, after func(start, end int) error) error {
	n, D, C := len(st.x)/v.dim, v.dim, v.classes
	ws := make([]float64, v.chunk)
	for start := 0; start < n; start += v.chunk {
		end := min(start+v.chunk, n)
		nn.StoreFloat64(v.xT, st.x[start*D:end*D])
		v.aug.SetFirst(start)
		for i := range ws {
			ws[i] = 0
			if i < end-start {
				ws[i] = st.wi
			}
		}
		nn.StoreFloat64(v.wT, ws)
		nn.StoreFloat64(v.pT, st.p[start*C:end*C])
		nn.StoreFloat64(v.dT, st.d[start*D:end*D])
		if st.r != nil {
			nn.StoreFloat64(v.rT, st.r[start*D:end*D])
		}
		sw.SetValid(end - start)
		if err := vm.Run(); err != nil {
			return err
		}
		if after != nil {
			if err := after(start, end); err != nil {
				vm.Release()
				return err
			}
		}
		vm.Release()
	}
	return nil
}
