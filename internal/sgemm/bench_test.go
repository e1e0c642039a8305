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

// BenchmarkKernel reports the GFLOP/s of one goroutine running the 6×16
// micro-kernel alone on packed panels that stay in L1 (kk = 256: 6 KB of A,
// 16 KB of B): the ceiling the packed product can approach per core, to
// set against the ≈ 107–115 GFLOP/s per core measured for an 8×32 AVX-512
// kernel on this Zen 4 (the shared SGEMM notes), which decides whether
// an AVX-512 kernel is worth its code (bench/NOTES.md, issue 12).
func BenchmarkKernel(b *testing.B) {
	r := rand.New(rand.NewPCG(2, 2))
	const kk = 256
	a, bb, c := randSlice(r, kk*MR), randSlice(r, kk*NR), make([]float32, MR*NR)
	for _, tc := range []struct {
		name string
		asm  bool
	}{{"asm", true}, {"go", false}} {
		if tc.asm && !haveAsm {
			continue
		}
		b.Run(tc.name, func(b *testing.B) {
			defer func(u bool) { useAsm = u }(useAsm)
			useAsm = tc.asm
			for i := 0; i < b.N; i++ {
				kernel(kk, a, bb, c, NR)
			}
			b.ReportMetric(2*float64(kk*MR*NR)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
