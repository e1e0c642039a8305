package opencl

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestForDriver: a toolkit library is tried newest first among the
// versions the driver supports, then the newer ones nearest first (they
// fail late: at cuBLAS's first call, at the module's load), then the
// name without a version; with no driver the order stays as written.
func TestForDriver(t *testing.T) {
	nvrtcNames := []string{"libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so"}
	cublasNames := []string{"libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so"}
	for _, c := range []struct {
		driver int
		names  []string
		want   []string
	}{
		{0, nvrtcNames, nvrtcNames},
		{13, nvrtcNames, nvrtcNames},
		{14, nvrtcNames, nvrtcNames},
		{12, nvrtcNames, []string{"libnvrtc.so.12", "libnvrtc.so.11.2", "libnvrtc.so.13", "libnvrtc.so"}},
		{11, nvrtcNames, []string{"libnvrtc.so.11.2", "libnvrtc.so.12", "libnvrtc.so.13", "libnvrtc.so"}},
		{10, cublasNames, []string{"libcublas.so.11", "libcublas.so.12", "libcublas.so.13", "libcublas.so"}},
		{12, cublasNames, []string{"libcublas.so.12", "libcublas.so.11", "libcublas.so.13", "libcublas.so"}},
		// the order written does not matter once a driver is known
		{12, []string{"libcublas.so", "libcublas.so.11", "libcublas.so.13", "libcublas.so.12"}, []string{"libcublas.so.12", "libcublas.so.11", "libcublas.so.13", "libcublas.so"}},
	} {
		t.Run(fmt.Sprintf("driver %d", c.driver), func(t *testing.T) {
			in := append([]string(nil), c.names...)
			assert.Equal(t, c.want, forDriver(c.driver, in...))
			assert.Equal(t, c.names, in, "the caller's list is left as it was")
		})
	}
}

// TestStickyCUDAErrorsSayTheContextIsLost: an error after which every
// CUDA call of the process fails says so, and how to find the faulty
// kernel (launches fail later than they return); any other error does
// not.
func TestStickyCUDAErrorsSayTheContextIsLost(t *testing.T) {
	for _, c := range []struct {
		code   int32
		sticky bool
	}{
		{700, true}, {719, true}, {710, true}, {716, true},
		{1, false}, {2, false}, {701, false}, {999, false},
	} {
		err := cuCheck(c.code, "cuStreamSynchronize", "")
		msg := err.Error()
		assert.Equal(t, c.sticky, strings.Contains(msg, "CUDA_LAUNCH_BLOCKING=1") && strings.Contains(msg, "context is lost"),
			"code %d: %s", c.code, msg)
	}
	assert.NoError(t, cuCheck(0, "cuStreamSynchronize", ""))
}
