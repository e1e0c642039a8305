package binary

import (
	"testing"

	"github.com/llpfc/llpfc/estimators"
	"github.com/llpfc/llpfc/internal/rng"
	"github.com/llpfc/llpfc/training/kernel"

	"github.com/stretchr/testify/require"
)

// BenchmarkNystromOnOfflineTask measures the Nyström approximation on the
// offline task (Fashion-MNIST 0 vs 6, 1280 bagged instances, bag size 32,
// LP in [0, ½], λ = 10⁻⁴): the relative Frobenius error of K̃ and the test
// AUC of LLPFC-uniform with m landmarks against the exact kernel (reported
// as metrics; skipped when Fashion-MNIST is absent).
func BenchmarkNystromOnOfflineTask(b *testing.B) {
	src, err := OpenSource(OfflineName, "")
	if err != nil {
		b.Skip(err)
	}
	task, _ := src.Task(0, 1)
	d, err := MakeBags(task.Pool, 40, 32, 0, 0.5, rng.New(1, "binary/bags"))
	require.NoError(b, err)
	Xt, yt := testMatrix(task.Test, 1000, rng.New(1, "binary/test"))
	Z := kernel.FitStandardizer(d.X, d.Cont).Apply(d.X)
	g := kernel.ScaleGamma(Z)
	auc := func(maxExact int) float64 {
		s, err := kernel.LLPFC{Mode: estimators.ModeUniform, MaxExact: maxExact}.Fit(d, kernel.Params{Lambda: 1e-4}, 1)
		require.NoError(b, err)
		a, _ := kernel.AUC(s.Score(Xt), yt)
		return a
	}
	for i := 0; i < b.N; i++ {
		exact := auc(0)
		b.ReportMetric(exact, "auc-exact")
		for _, m := range []int{256, 1024} {
			e, err := kernel.NystromError(kernel.RBF, g, Z, Z.Slice(0, m, 0, Z.RawMatrix().Cols))
			require.NoError(b, err)
			b.ReportMetric(e, "relerr-m"+itoa(m))
			b.ReportMetric(auc(m), "auc-m"+itoa(m))
		}
	}
}

func itoa(i int) string {
	s := ""
	for ; i > 0; i /= 10 {
		s = string(rune('0'+i%10)) + s
	}
	return s
}
