package opencl

import (
	"fmt"
	"os"

	"github.com/llpfc/llpfc/internal/opencl"
)

// ConvEnv names the variable that chooses how the convolutions run (a
// variant the GPU kit's sweep measures beside the default, recorded in
// every result's numerics):
//
//	unset or "im2col"  chunks of images unfolded into a workspace,
//	                   CLBlast's SGEMM, a reorder (the default)
//	"implicit"         implicit GEMM: one tiled kernel per pass that
//	                   unfolds inside its loads (kernels/conv_implicit.cl)
//	"implicit:dw", …   those passes (fwd, dx, dw joined by +) implicit,
//	                   the others im2col (opencl.ParseConvPath)
//	"cudnn"            every pass one call of NVIDIA's cuDNN, on the CUDA
//	                   driver only (--device cuda): deterministic
//	                   algorithms in FMA math (no TF32), no FFT nor
//	                   non-fused Winograd
//
// Any other value is an error naming the variable and the value: a typo
// would otherwise time the default under the variant's name.
const ConvEnv = "LLPFC_OPENCL_CONV"

// convVariant reads ConvEnv and returns the path and how the numerics
// name it: nothing for the default, so that results of the im2col path
// keep the numerics they were recorded with, and "conv implicit (…)"
// otherwise.
func convVariant() (opencl.ConvPath, string, error) {
	v := os.Getenv(ConvEnv)
	p, err := opencl.ParseConvPath(v)
	if err != nil {
		return 0, "", fmt.Errorf("%s=%s: %w", ConvEnv, v, err)
	}
	switch p {
	case opencl.ConvIm2col:
		return p, "", nil
	case opencl.ConvCuDNN:
		return p, "conv cudnn (deterministic algorithms, FMA math: no TF32, no FFT nor non-fused Winograd)", nil
	}
	return p, fmt.Sprintf("conv %s (GEMM tile %d×%d×%d, %d×%d per work-item)", p, opencl.ImplicitTM, opencl.ImplicitTN, opencl.ImplicitTK, opencl.ImplicitRM, opencl.ImplicitRN), nil
}
