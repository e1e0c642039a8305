package estimators

import (
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/llpfc/llpfc/internal/rng"
)

// BenchmarkTransition10000Groups measures computing σ̂_i and T̂_i (Algorithm
// 2/3, lines 7–9) for 10,000 groups with C = 10, given Γ̂_i and α̂_i.
func BenchmarkTransition10000Groups(b *testing.B) {
	const N, C = 10000, 10
	set := randomBagSet(rng.New(1, "bench"), C, N*C, 0)
	gammas := make([]*mat.Dense, N)
	alphas := make([][]float64, N)
	for i := range gammas {
		bags := make([]int, C)
		alphas[i] = make([]float64, C)
		for c := range bags {
			bags[c] = i*C + c
			alphas[i][c] = 1.0 / C
		}
		gammas[i] = gammaOf(set, bags)
	}
	b.ReportAllocs()
	for b.Loop() {
		for i := range gammas {
			if _, _, _, err := transition(gammas[i], alphas[i], CompatPaper); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// BenchmarkBuild10000Groups measures a whole Build (partition, α̂, T̂,
// weights and all diagnostics, which dominate: SVDs, LU, inverse) for
// 100,000 bags, C = 10, i.e. one regrouping of a CIFAR-sized data set with
// bag size 0.5.
func BenchmarkBuild10000Groups(b *testing.B) {
	const N, C = 10000, 10
	set := randomBagSet(rng.New(1, "bench"), C, N*C, 0)
	for _, m := range []Mode{ModeUniform, ModeApprox} {
		b.Run(m.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := BuildSeed(set, Options{Mode: m}, 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
