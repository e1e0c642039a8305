package kernel

import (
	"math"

	"gonum.org/v1/gonum/mat"
)

// Kind names a kernel.
type Kind string

const (
	// RBF is k(x, y) = exp(−γ‖x−y‖²), sklearn's "rbf" used by the LMMCM and
	// LLPFC code.
	RBF Kind = "rbf"
	// ExpDist is k(x, y) = exp(−γ‖x−y‖), the kernel the pSVM/InvCal code
	// calls "rbf1/rbf01/rbf001" (kernel_f.m: exp(−γ·pdist2(x, y)), pdist2
	// being the Euclidean distance, not its square).
	ExpDist Kind = "expdist"
)

// Gram returns K(i, j) = k(X_i, Y_j) for the rows of X and Y.
func Gram(kind Kind, gamma float64, X, Y mat.Matrix) *mat.Dense {
	K := SqDist(X, Y)
	applyKernel(kind, gamma, K)
	return K
}

// applyKernel replaces squared distances by kernel values in place.
func applyKernel(kind Kind, gamma float64, D2 *mat.Dense) {
	raw := D2.RawMatrix()
	r, c := D2.Dims()
	for i := 0; i < r; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+c]
		for j, d2 := range row {
			if kind == ExpDist {
				row[j] = math.Exp(-gamma * math.Sqrt(d2))
			} else {
				row[j] = math.Exp(-gamma * d2)
			}
		}
	}
}

// SqDist returns D(i, j) = ‖X_i − Y_j‖², through ‖x‖² + ‖y‖² − 2xᵀy (one
// matrix product), clamped at 0.
func SqDist(X, Y mat.Matrix) *mat.Dense {
	nx, d := X.Dims()
	ny, _ := Y.Dims()
	K := mat.NewDense(nx, ny, nil)
	K.Mul(X, Y.T())
	sx := rowSqNorms(X, nx, d)
	sy := rowSqNorms(Y, ny, d)
	raw := K.RawMatrix()
	for i := 0; i < nx; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+ny]
		for j := range row {
			d2 := sx[i] + sy[j] - 2*row[j]
			if d2 < 0 {
				d2 = 0
			}
			row[j] = d2
		}
	}
	return K
}

func rowSqNorms(X mat.Matrix, n, d int) []float64 {
	s := make([]float64, n)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			v := X.At(i, j)
			s[i] += v * v
		}
	}
	return s
}

// ScaleGamma returns 1/(d·Var(X)), the kernel parameter of the appendix
// ("We compute the kernel parameter by 1/(d·Var(X)) where d is the number of
// features and Var(X) is the variance of the data matrix"): the population
// variance of all entries of X, as numpy's X.var() in sklearn's
// gamma='scale'. A constant matrix gives 1/d.
func ScaleGamma(X mat.Matrix) float64 {
	n, d := X.Dims()
	var s, s2 float64
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			v := X.At(i, j)
			s += v
			s2 += v * v
		}
	}
	N := float64(n * d)
	mean := s / N
	v := s2/N - mean*mean
	if !(v > 0) {
		return 1 / float64(d)
	}
	return 1 / (float64(d) * v)
}

// Standardizer maps the continuous columns to zero mean and unit variance
// with statistics of the training rows (sklearn's StandardScaler, population
// standard deviation), leaving the others (one-hot columns) unchanged, as
// feature_engineering_cont of the LMMCM code. A column of zero variance is
// only centred.
type Standardizer struct {
	Mean, Scale []float64 // Scale 1 and Mean 0 for a column left as is
}

// FitStandardizer computes the statistics of the rows of X; cont[j] says
// whether column j is standardized (nil: every column).
func FitStandardizer(X mat.Matrix, cont []bool) *Standardizer {
	n, d := X.Dims()
	s := &Standardizer{Mean: make([]float64, d), Scale: make([]float64, d)}
	for j := 0; j < d; j++ {
		s.Scale[j] = 1
		if cont != nil && !cont[j] {
			continue
		}
		var m, m2 float64
		for i := 0; i < n; i++ {
			m += X.At(i, j)
		}
		m /= float64(n)
		for i := 0; i < n; i++ {
			v := X.At(i, j) - m
			m2 += v * v
		}
		s.Mean[j] = m
		if sd := math.Sqrt(m2 / float64(n)); sd > 0 {
			s.Scale[j] = sd
		}
	}
	return s
}

// Apply returns the standardized copy of X.
func (s *Standardizer) Apply(X mat.Matrix) *mat.Dense {
	n, d := X.Dims()
	out := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			out.Set(i, j, (X.At(i, j)-s.Mean[j])/s.Scale[j])
		}
	}
	return out
}

// rows returns the rows idx of X as a new matrix.
func rows(X mat.Matrix, idx []int) *mat.Dense {
	_, d := X.Dims()
	out := mat.NewDense(len(idx), d, nil)
	for r, i := range idx {
		for j := 0; j < d; j++ {
			out.Set(r, j, X.At(i, j))
		}
	}
	return out
}
