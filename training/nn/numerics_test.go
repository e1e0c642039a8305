package nn

import (
	"strings"
	"testing"

	"github.com/llpfc/llpfc/internal/sgemm"
	"github.com/stretchr/testify/assert"
)

// LLPFC_CONV3X3 chooses the 3×3 convolutions' algorithm at start-up: im2col
// turns Winograd off, winograd or nothing leaves it on, and a misspelling
// keeps the default (with a word on standard error) rather than silently
// switching algorithms.
func TestConv3x3Env(t *testing.T) {
	for _, tc := range []struct {
		value    string
		winograd bool
	}{{"", true}, {"winograd", true}, {"im2col", false}, {"Im2col", true}, {"direct", true}} {
		assert.Equal(t, tc.winograd, winogradFromEnv(tc.value), "%s=%q", Conv3x3Env, tc.value)
	}
}

// Numerics names the micro-kernel in use and the algorithm the 3×3
// convolutions take, following SetWinograd.
func TestNumericsFollowsTheSettings(t *testing.T) {
	defer SetWinograd(SetWinograd(true))
	on := Numerics()
	SetWinograd(false)
	off := Numerics()
	for _, s := range []string{on, off} {
		if BLASName == "gonum+sgemm" {
			assert.True(t, strings.HasPrefix(s, "sgemm "+sgemm.Active().Name+"; "), "numerics %q without the kernel %s", s, sgemm.Active().Name)
		}
	}
	assert.Contains(t, off, "conv3x3 im2col")
	if BLASName == "gonum+sgemm" {
		assert.Contains(t, on, "conv3x3 winograd")
	}
}
