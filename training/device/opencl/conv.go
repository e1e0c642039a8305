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

// CuDNNAlgoEnv names the variable that chooses how the cudnn path picks
// each pass's algorithm from cuDNN's heuristic ranking (a variant the GPU
// kit's sweep times, recorded in the numerics):
//
//	unset or "deterministic"  the first deterministic one in FMA math that
//	                          is neither an FFT nor the non-fused Winograd
//	                          (the default: the same seed, the same numbers)
//	"heuristic"               the first in FMA math, whatever its
//	                          determinism and transform: cuDNN's own pick,
//	                          as PyTorch takes it by default, for timing
//	                          what the default's rule costs
//
// It needs ConvEnv=cudnn; any other value, or heuristic on another path,
// is an error naming the variable.
const CuDNNAlgoEnv = "LLPFC_CUDNN_ALGO"

// cudnnAlgosVariant reads CuDNNAlgoEnv for a back end whose convolutions
// take path p.
func cudnnAlgosVariant(p opencl.ConvPath) (opencl.CuDNNAlgos, error) {
	switch v := os.Getenv(CuDNNAlgoEnv); v {
	case "", "deterministic":
		return opencl.CuDNNDeterministic, nil
	case "heuristic":
		if p != opencl.ConvCuDNN {
			return 0, fmt.Errorf("%s=heuristic: cuDNN's algorithms are chosen only on the path %s=cudnn", CuDNNAlgoEnv, ConvEnv)
		}
		return opencl.CuDNNHeuristic, nil
	default:
		return 0, fmt.Errorf("%s=%s: want deterministic (the default) or heuristic", CuDNNAlgoEnv, v)
	}
}

// cudnnNumerics is how the numerics name the cudnn path of cuDNN version v
// under rule a.
func cudnnNumerics(v string, a opencl.CuDNNAlgos) string {
	if a == opencl.CuDNNHeuristic {
		return "conv cudnn (cuDNN " + v + "; the heuristic's first algorithm, deterministic or not, FFT and non-fused Winograd allowed; FMA math: no TF32)"
	}
	return "conv cudnn (cuDNN " + v + "; deterministic algorithms, FMA math: no TF32, no FFT nor non-fused Winograd)"
}

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
		return p, "", nil // named at Open (cudnnNumerics), with cuDNN's version and its algorithm rule
	}
	return p, fmt.Sprintf("conv %s (GEMM tile %d×%d×%d, %d×%d per work-item)", p, opencl.ImplicitTM, opencl.ImplicitTN, opencl.ImplicitTK, opencl.ImplicitRM, opencl.ImplicitRN), nil
}
