package opencl

import (
	_ "embed"
	"strings"
)

// cudaPrelude maps the OpenCL C of the kernel library onto CUDA C++
// (kernels/cuda_prelude.h; not a .cl file, so KernelSource leaves it out).
//
//go:embed kernels/cuda_prelude.h
var cudaPrelude string

// CUDAKernelSource returns the kernel library as CUDA C++ for NVRTC: the
// prelude, which defines LLPFC_CUDA and maps OpenCL's qualifiers,
// work-item functions and built-ins onto CUDA's, followed by the very text
// KernelSource gives OpenCL. One source serves both back ends, so the PoCL
// tests on any machine test what a CUDA GPU runs. Every kernel is extern
// "C": cuModuleGetFunction finds it by its OpenCL name (kernelNames).
func CUDAKernelSource() string {
	return "#define LLPFC_CUDA 1\n" + cudaPrelude + KernelSource()
}

// cudaNumerics are NVRTC's options for OpenCL's numerics, kept from the
// defaults on purpose: no contraction of a·b + c into an fma (the OpenCL
// source's FP_CONTRACT OFF; NVRTC fuses by default), division and square
// root correctly rounded, subnormals kept. The last option makes the
// library's unannotated helper functions device functions, as every
// OpenCL function is (its short form, -default-device, would do too).
var cudaNumerics = []string{
	"--fmad=false", "--prec-div=true", "--prec-sqrt=true", "--ftz=false",
	"--std=c++17", "--device-as-default-execution-space",
}

// CUDABuildOptions returns NVRTC's options for the library on dev: the
// defines of BuildOptions (LLPFC_FP64 when dev.FP64, which a CUDA device
// should always report: the kernels' acc_t arguments follow it) and
// cudaNumerics. The target (--gpu-architecture=sm_XY) is the caller's, from
// the device's compute capability.
func CUDABuildOptions(dev DeviceInfo) []string {
	return CUDAOptionsFromCL(BuildOptions(dev))
}

// CUDAOptionsFromCL turns OpenCL build options into NVRTC's: each define
// (-DNAME, -DNAME=V or -D NAME=V) is kept, so what selects a variant of
// the library under OpenCL (LLPFC_FP64, the implicit convolution's
// CONV_TM … tile) selects it under CUDA; the rest (-cl-* flags, which
// cudaNumerics covers, -Werror) is dropped. cudaNumerics follow.
func CUDAOptionsFromCL(clOptions string) []string {
	var opts []string
	f := strings.Fields(clOptions)
	for i := 0; i < len(f); i++ {
		switch {
		case f[i] == "-D" && i+1 < len(f):
			i++
			opts = append(opts, "-D"+f[i])
		case strings.HasPrefix(f[i], "-D") && len(f[i]) > 2:
			opts = append(opts, f[i])
		}
	}
	return append(opts, cudaNumerics...)
}
