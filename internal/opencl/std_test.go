package opencl_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/internal/opencl"
	"github.com/llpfc/llpfc/internal/opencl/ocltest"
)

// TestKernelsAreOpenCLC12: the kernel library compiles as OpenCL C 1.2
// (-cl-std=CL1.2), the language every driver the back end meets accepts —
// NVIDIA's among them, whose compiler refuses what PoCL's newer default
// lets through (program-scope variables, generic address space, C11
// atomics). The GPU machines come rarely and briefly: a kernel that builds
// here and not there costs the whole window, since the library is one
// program.
func TestKernelsAreOpenCLC12(t *testing.T) {
	ctx := ocltest.Context(t)
	for _, fp64 := range []bool{false, true} {
		dev := ctx.Device()
		dev.FP64 = fp64 && dev.FP64
		p, err := ctx.BuildProgram(opencl.KernelSource(), opencl.BuildOptions(dev)+" -cl-std=CL1.2 -Werror")
		require.NoError(t, err, "fp64 %v", fp64)
		p.Release()
	}
}
