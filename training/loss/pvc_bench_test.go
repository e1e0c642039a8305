package loss

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// BenchmarkPVC is the time of LLP-PVC's loss and gradient for one bag of s
// instances and 10 classes (one op: the bag's ten class terms), for the
// exact likelihood and the authors' FFT, at the network's start (every
// sigmoid near 1/10, the authors' bias) with the proportions of the paper
// protocol (γ uniform on the simplex): most targets far from the mean.
// Run with -cpu 1 for one thread (the terms run in parallel otherwise).
func BenchmarkPVC(b *testing.B) {
	const C = 10
	for _, s := range []int{512, 2048} {
		r := rand.New(rand.NewPCG(uint64(s), 55))
		out := make([]float64, s*C)
		for i := range out {
			out[i] = -math.Log(C-1) + 0.5*r.NormFloat64()
		}
		gam, sum := make([]float64, C), 0.0
		for c := range gam {
			gam[c] = r.ExpFloat64()
			sum += gam[c]
		}
		for c := range gam {
			gam[c] /= sum
		}
		bag := []BagRef{{Indices: make([]int, s), Proportions: gam}}
		grad := make([]float64, len(out))
		for _, lik := range []PVCLikelihood{PVCExact, PVCFFT} {
			b.Run(fmt.Sprintf("%s/s=%d", lik, s), func(b *testing.B) {
				v := &PVC{Likelihood: lik}
				for range b.N {
					if _, err := v.Loss(out, C, bag, grad); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
