package data

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One far-off feature index among ordinary lines (a 3 KB file) once asked
// for ~16 GB dense and crashed the runtime. The reader now fails
// with an error naming the file, the line with the largest index and the
// memory it would need; the limit is below the memory available.
func TestLIBSVMFarIndexFailsClearly(t *testing.T) {
	require.Greater(t, denseLimit, int64(0))
	assert.LessOrEqual(t, denseLimit*valueBytes, availableBytes(), "the limit is within the available memory")
	var b strings.Builder
	for i := 0; i < 240; i++ {
		if i == 117 {
			b.WriteString("0 16777216:1.0\n")
			continue
		}
		b.WriteString("1 1:0.5 2:0.25 3:1\n")
	}
	old := denseLimit
	denseLimit = 1 << 30 // a machine with 24 GiB available: 241·2^24 values do not fit
	defer func() { denseLimit = old }()
	_, err := ReadLIBSVM(strings.NewReader(b.String()), "sparse.libsvm", TabularOptions{})
	require.Error(t, err)
	for _, want := range []string{"sparse.libsvm", "240 instances × 16777216 features", "line 118", "GiB"} {
		assert.Contains(t, err.Error(), want)
	}
}
