//go:build !(openblas && cgo)

package training

// BLASName names the BLAS behind the matrix products of training: "gonum"
// (pure Go, gonum.org/v1/gonum/blas/gonum), the default that CI tests.
// Build with -tags openblas (and libopenblas-dev) for OpenBLAS; see
// bench/NOTES.md, lever "BLAS choice" of issue 7.
const BLASName = "gonum"
