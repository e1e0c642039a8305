package opencl

// Stubs of the kernel library's CUDA translation, written apart; this
// file goes when the translation is merged (it defines both functions).

// CUDAKernelSource returns the kernel library's source translated for
// NVRTC (stub: empty, so building the library on CUDA fails with "empty
// program source").
func CUDAKernelSource() string { return "" }

// CUDABuildOptions returns NVRTC's options for the library on dev,
// without the architecture (stub: the OpenCL build's equivalents).
func CUDABuildOptions(dev DeviceInfo) []string {
	opts := []string{"--fmad=false", "--prec-div=true", "--prec-sqrt=true"}
	if dev.FP64 {
		opts = append(opts, "-DLLPFC_FP64=1")
	}
	return opts
}
