package sgemm

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// benchShapes are the models' products (m×k times k×n): the mlp's first and
// second layers at minibatch 128, the cnn's im2col product, and a square one.
var benchShapes = [][3]int{{128, 512, 784}, {128, 256, 512}, {25088, 64, 288}, {2048, 2048, 2048}}

// BenchmarkSgemm reports GFLOP/s of this package and of gonum's Sgemm on the
// models' shapes (`make bench`; min–median–max over runs in bench/NOTES.md).
func BenchmarkSgemm(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, s := range benchShapes {
		m, n, k := s[0], s[1], s[2]
		if testing.Short() && m*n*k > 1<<30 {
			continue
		}
		a, bb, c := randSlice(r, m*k), randSlice(r, k*n), make([]float32, m*n)
		flops := 2 * float64(m) * float64(n) * float64(k)
		b.Run(fmt.Sprintf("ours/%dx%dx%d", m, n, k), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				Sgemm(false, false, m, n, k, 1, a, k, bb, n, 0, c, n)
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
		b.Run(fmt.Sprintf("gonum/%dx%dx%d", m, n, k), func(b *testing.B) {
			var impl gonum.Implementation
			for i := 0; i < b.N; i++ {
				impl.Sgemm(blas.NoTrans, blas.NoTrans, m, n, k, 1, a, k, bb, n, 0, c, n)
			}
			b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkKernel reports the GFLOP/s of one goroutine running each
// micro-kernel alone on packed panels that stay in L1 (kk = 256): the
// ceiling the packed product can approach per core (bench/NOTES.md).
func BenchmarkKernel(b *testing.B) {
	r := rand.New(rand.NewPCG(2, 2))
	const kk = 256
	for _, kern := range allKernels(b) {
		a, bb, c := randSlice(r, kk*kern.MR), randSlice(r, kk*kern.NR), make([]float32, kern.MR*kern.NR)
		b.Run(kern.Name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				kern.run(kk, a, bb, c, kern.NR, true)
			}
			b.ReportMetric(2*float64(kk*kern.MR*kern.NR)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}

// BenchmarkSgemmKernel reports GFLOP/s of the packed product on the models'
// shapes with each assembly kernel this processor runs (the choice between
// the AVX-512 and the AVX2 tile, bench/NOTES.md).
func BenchmarkSgemmKernel(b *testing.B) {
	defer SetKernel(Active())
	r := rand.New(rand.NewPCG(1, 1))
	for _, s := range benchShapes {
		m, n, k := s[0], s[1], s[2]
		a, bb, c := randSlice(r, m*k), randSlice(r, k*n), make([]float32, m*n)
		flops := 2 * float64(m) * float64(n) * float64(k)
		for _, kern := range []Kernel{KernelAVX512, KernelAVX2} {
			if !Supported(kern) {
				continue
			}
			b.Run(fmt.Sprintf("%s/%dx%dx%d", kern.Name, m, n, k), func(b *testing.B) {
				SetKernel(kern)
				for i := 0; i < b.N; i++ {
					Sgemm(false, false, m, n, k, 1, a, k, bb, n, 0, c, n)
				}
				b.ReportMetric(flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}
