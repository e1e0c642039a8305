package opencl_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llpfc/llpfc/internal/opencl"
	"github.com/llpfc/llpfc/internal/opencl/ocltest"
)

// clangCUDA finds a clang that compiles CUDA for NVPTX (clang++-16, the
// version .ci/run installs, else clang++), skipping t without one (failing
// it in CI).
func clangCUDA(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"clang++-16", "clang++"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if ocltest.InCI() {
		t.Fatal("clang++ is required in CI (CI=true) but not on PATH (Debian package clang-16)")
	}
	t.Skip("clang++ not on PATH, skipping (CI=true makes this a failure; Debian package clang-16)")
	return ""
}

// nvrtcToClang translates NVRTC options into clang's CUDA flags, starting
// from NVRTC's defaults (--fmad=true, --prec-div=true, --prec-sqrt=true,
// --ftz=false), so an option CUDABuildOptions leaves out has NVRTC's
// effect here too. forceDevice reports --device-as-default-execution-space
// (short form -default-device), which clang has as a pragma. An option it
// does not know is an error: its effect on the PTX would go unchecked.
func nvrtcToClang(opts []string) (flags []string, forceDevice bool, err error) {
	on := map[string]bool{"fmad": true, "prec-div": true, "prec-sqrt": true, "ftz": false}
	for _, o := range opts {
		name, val, hasVal := strings.Cut(strings.TrimPrefix(o, "--"), "=")
		switch {
		case strings.HasPrefix(o, "-D") && len(o) > 2:
			flags = append(flags, o)
		case o == "--device-as-default-execution-space" || o == "-default-device":
			forceDevice = true
		case name == "std" && hasVal:
			flags = append(flags, "-std="+val)
		case hasVal && (val == "true" || val == "false") && strings.HasPrefix(o, "--"):
			if _, ok := on[name]; !ok {
				return nil, false, fmt.Errorf("NVRTC option %q has no clang counterpart here", o)
			}
			on[name] = val == "true"
		default:
			return nil, false, fmt.Errorf("NVRTC option %q has no clang counterpart here", o)
		}
	}
	if on["fmad"] {
		flags = append(flags, "-ffp-contract=fast")
	} else {
		flags = append(flags, "-ffp-contract=off")
	}
	if on["ftz"] {
		flags = append(flags, "-fgpu-flush-denormals-to-zero")
	}
	if !on["prec-div"] {
		flags = append(flags, "-mllvm", "-nvptx-prec-divf32=1")
	}
	if !on["prec-sqrt"] {
		flags = append(flags, "-mllvm", "-nvptx-prec-sqrtf32=0")
	}
	return flags, forceDevice, nil
}

// compileCUDA compiles src with NVRTC's options opts by clang to PTX for
// sm_90, device code only, warnings as errors, and returns the PTX. With
// cudaPath empty there is no CUDA installation: testdata/nvrtc_builtins.h
// declares what NVRTC provides. Otherwise clang reads the CUDA headers of
// the installation at cudaPath, as NVRTC reads its own before the source.
func compileCUDA(t *testing.T, clang, cudaPath, src string, opts []string) string {
	t.Helper()
	flags, forceDevice, err := nvrtcToClang(opts)
	require.NoError(t, err)
	dir := t.TempDir()
	head, args := "", []string{"-x", "cuda", "--cuda-device-only", "--cuda-gpu-arch=sm_90", "-nocudalib", "-O2", "-Wall", "-Werror"}
	if cudaPath == "" {
		testdata, err := filepath.Abs("testdata")
		require.NoError(t, err)
		head = "#include \"nvrtc_builtins.h\"\n"
		args = append(args, "-nocudainc", "-I", testdata)
	} else {
		args = append(args, "--cuda-path="+cudaPath, "-Wno-unknown-cuda-version")
	}
	if forceDevice {
		head += "#pragma clang force_cuda_host_device begin\n"
	}
	cu := filepath.Join(dir, "kernels.cu")
	require.NoError(t, os.WriteFile(cu, []byte(head+src), 0o644))
	ptx := filepath.Join(dir, "kernels.ptx")
	args = append(append(args, "-S", "-o", ptx), flags...)
	out, err := exec.Command(clang, append(args, cu)...).CombinedOutput()
	require.NoError(t, err, "clang %s:\n%s", strings.Join(args, " "), out)
	b, err := os.ReadFile(ptx)
	require.NoError(t, err)
	return string(b)
}

// ptxFunc is one function of a PTX module: a kernel (.entry) or a device
// function (.func), its header and body.
type ptxFunc struct {
	entry bool
	text  string
}

var ptxHeader = regexp.MustCompile(`^(?:\.visible |\.weak )*\.(entry|func)\s+(?:\([^)]*\)\s*)?([A-Za-z_$][\w$]*)\($`)

// ptxFuncs splits a PTX module into its functions by name.
func ptxFuncs(ptx string) map[string]*ptxFunc {
	funcs := map[string]*ptxFunc{}
	var cur *ptxFunc
	for _, line := range strings.Split(ptx, "\n") {
		if m := ptxHeader.FindStringSubmatch(strings.TrimSpace(line)); m != nil {
			cur = &ptxFunc{entry: m[1] == "entry"}
			funcs[m[2]] = cur
		}
		if cur != nil {
			cur.text += line + "\n"
		}
	}
	return funcs
}

// clKernel is what the OpenCL source says of a kernel: its parameters'
// types (the ABI the CUDA back end's launches must match; "pointer" for any
// pointer) and whether its body declares local arrays.
type clKernel struct {
	params []string
	local  bool
}

var kernelSig = regexp.MustCompile(`__kernel\b[^{;]*?\bvoid\s+(\w+)\s*\(([^)]*)\)\s*\{`)

// clKernels reads the kernels of the OpenCL source.
func clKernels(src string) map[string]clKernel {
	out := map[string]clKernel{}
	for _, m := range kernelSig.FindAllStringSubmatchIndex(src, -1) {
		var k clKernel
		for _, p := range strings.Split(src[m[4]:m[5]], ",") {
			f := strings.Fields(p)
			typ := strings.Join(f[:len(f)-1], " ")
			if strings.Contains(p, "*") {
				typ = "pointer"
			}
			k.params = append(k.params, typ)
		}
		depth, end := 1, m[1]
		for ; end < len(src) && depth > 0; end++ {
			switch src[end] {
			case '{':
				depth++
			case '}':
				depth--
			}
		}
		k.local = strings.Contains(src[m[1]:end], "__local ")
		out[src[m[2]:m[3]]] = k
	}
	return out
}

// contains reports whether a PTX text holds sub, failing t with msg
// (without the text: a function's PTX runs to pages) when it does not.
func contains(t *testing.T, text, sub string, msg string, args ...any) {
	t.Helper()
	if !strings.Contains(text, sub) {
		t.Errorf("%s: no %q in the PTX", fmt.Sprintf(msg, args...), sub)
	}
}

// ptxParam is the PTX declaration a kernel parameter of an OpenCL type
// must have (by value, as the host passes it to cuLaunchKernel): an int8
// is 32 bytes aligned to 32, as OpenCL's.
func ptxParam(typ string, fp64 bool, name string) (string, error) {
	switch typ {
	case "pointer":
		return ".param .u64 " + name, nil
	case "int", "uint":
		return ".param .u32 " + name, nil
	case "float":
		return ".param .f32 " + name, nil
	case "acc_t":
		if fp64 {
			return ".param .f64 " + name, nil
		}
		return ".param .f32 " + name, nil
	case "int8":
		return ".param .align 32 .b8 " + name + "[32]", nil
	}
	return "", fmt.Errorf("kernel parameter type %q: say how CUDA passes it", typ)
}

var (
	fusedOp    = regexp.MustCompile(`\b(?:fma|mad)\.\w+\.f(?:32|64)\b`)
	roundedOp  = regexp.MustCompile(`\b(div|sqrt|rcp)\.(\w+)\.f(?:32|64)\b`)
	ftzOp      = regexp.MustCompile(`\.ftz\b`)
	externFunc = regexp.MustCompile(`(?m)^\.extern \.func\s+(?:\([^)]*\)\s*)?(\w+)$`)
)

// TestKernelsCompileAsCUDA: CUDAKernelSource compiles as CUDA C++ with
// CUDABuildOptions' numerics — by clang's CUDA mode to PTX, which stands
// in for NVRTC where there is no GPU — with every kernel of the library
// an unmangled entry whose parameters are the OpenCL kernel's, and the
// numerics of the OpenCL build: no contraction (only the explicit fma of
// the implicit convolution fuses), correctly rounded division and square
// root, no flush to zero, float functions for float arguments, and
// double accumulators under LLPFC_FP64. The CUDA back end compiles this
// source first on a GPU machine, whose time is short: a kernel that only
// fails there costs the window.
func TestKernelsCompileAsCUDA(t *testing.T) {
	clang := clangCUDA(t)
	src := opencl.CUDAKernelSource()
	kernels := clKernels(opencl.KernelSource())
	for _, fp64 := range []bool{true, false} {
		t.Run(fmt.Sprintf("fp64=%v", fp64), func(t *testing.T) {
			ptx := compileCUDA(t, clang, "", src, opencl.CUDABuildOptions(opencl.DeviceInfo{FP64: fp64}))
			funcs := ptxFuncs(ptx)
			checkEntries(t, funcs, kernels, fp64)

			// Contraction off: a·b + c rounds twice as in Go. The implicit
			// convolution's fma is explicit and stays fused.
			for name, f := range funcs {
				if explicitFMA[name] {
					contains(t, f.text, "fma.rn.f32", "%s: its explicit fma", name)
					continue
				}
				assert.Empty(t, fusedOp.FindAllString(f.text, 3), "%s: contracted a·b + c", name)
			}
			for _, m := range roundedOp.FindAllStringSubmatch(ptx, -1) {
				assert.Equal(t, "rn", m[2], "%s: not correctly rounded", m[0])
			}
			assert.Empty(t, ftzOp.FindAllString(ptx, 3), "subnormals flushed to zero")

			// Float arguments call float functions (unary's exp, ln,
			// log1p, tanh), not the double ones on promoted values.
			var ext []string
			for _, m := range externFunc.FindAllStringSubmatch(ptx, -1) {
				ext = append(ext, m[1])
			}
			for _, fn := range []string{"expf", "logf", "log1pf", "tanhf"} {
				assert.Contains(t, ext, fn, "no call of %s", fn)
			}

			// The work-item functions read CUDA's registers: global id =
			// group · size + local id, in each dimension a kernel uses.
			for _, c := range []struct {
				kernel string
				regs   []string
			}{
				{"axpy", []string{"%ctaid.x", "%ntid.x", "%tid.x"}},
				{"reduce_axes", []string{"%ctaid.x", "%ntid.x", "%tid.x"}},
				{"conv_igemm_fwd", []string{"%ctaid.x", "%ctaid.y", "%tid.x", "%tid.y"}},
				{"conv_igemm_bwd_filter", []string{"%ctaid.z"}},
			} {
				if f := funcs[c.kernel]; f != nil {
					for _, r := range c.regs {
						contains(t, f.text, r, "%s: its work-item functions", c.kernel)
					}
				}
			}

			checkAccumulators(t, funcs, fp64)
		})
	}
}

// explicitFMA are the kernels whose source calls fma itself (the implicit
// convolution's tiles), fused whatever the contraction option.
var explicitFMA = map[string]bool{"conv_igemm_fwd": true, "conv_igemm_bwd_data": true, "conv_igemm_bwd_filter": true}

// checkEntries checks that every kernel of the library is an unmangled
// .entry of the PTX module funcs whose parameters are the OpenCL kernel's
// (kernels), as the host passes them, and whose local arrays are shared
// memory.
func checkEntries(t *testing.T, funcs map[string]*ptxFunc, kernels map[string]clKernel, fp64 bool) {
	t.Helper()
	for _, name := range opencl.KernelNames {
		f := funcs[name]
		if !assert.True(t, f != nil && f.entry, "kernel %s: no unmangled .entry %s( in the PTX", name, name) {
			continue
		}
		k, ok := kernels[name]
		if !assert.True(t, ok, "kernel %s: no signature found in the OpenCL source", name) {
			continue
		}
		for i, typ := range k.params {
			want, err := ptxParam(typ, fp64, fmt.Sprintf("%s_param_%d", name, i))
			if assert.NoError(t, err, name) {
				contains(t, f.text, want, "kernel %s, parameter %d (%s)", name, i, typ)
			}
		}
		assert.False(t, strings.Contains(f.text, fmt.Sprintf("%s_param_%d", name, len(k.params))),
			"kernel %s: more parameters than in OpenCL", name)
		// a work-group's local arrays are a block's shared memory
		if k.local {
			contains(t, f.text, ".shared ", "kernel %s: its local arrays", name)
		}
	}
}

// checkAccumulators checks acc_t: a reduction's shared sums are double
// under LLPFC_FP64, float without.
func checkAccumulators(t *testing.T, funcs map[string]*ptxFunc, fp64 bool) {
	t.Helper()
	f := funcs["reduce_axes"]
	if !assert.NotNil(t, f, "no reduce_axes in the PTX") {
		return
	}
	if fp64 {
		contains(t, f.text, "st.shared.f64", "reduce_axes: sums in double")
		contains(t, f.text, "add.rn.f64", "reduce_axes: sums in double")
	} else {
		assert.False(t, strings.Contains(f.text, ".f64"), "reduce_axes: double without LLPFC_FP64")
	}
}

// cudaPathEnv names a CUDA installation (its include/ holds cuda_runtime.h)
// for TestKernelsCompileWithCUDAHeaders.
const cudaPathEnv = "LLPFC_CUDA_PATH"

// TestKernelsCompileWithCUDAHeaders: with a CUDA installation at
// $LLPFC_CUDA_PATH, the translation compiles after CUDA's own headers, as
// NVRTC compiles it after its built-in ones: the prelude's names (its
// typedefs, int8, the macros over the math functions) clash with none of
// CUDA's, and every kernel is still an unmangled entry. Only a machine
// with the CUDA headers runs it; the numerics checks stay with
// TestKernelsCompileAsCUDA, since libdevice's functions use approximate
// instructions inside their own error bounds.
func TestKernelsCompileWithCUDAHeaders(t *testing.T) {
	cudaPath := os.Getenv(cudaPathEnv)
	if cudaPath == "" {
		t.Skipf("%s not set: no CUDA headers to compile against", cudaPathEnv)
	}
	clang := clangCUDA(t)
	_, err := os.Stat(filepath.Join(cudaPath, "include", "cuda_runtime.h"))
	require.NoError(t, err, "%s=%s is not a CUDA installation", cudaPathEnv, cudaPath)
	for _, fp64 := range []bool{true, false} {
		ptx := compileCUDA(t, clang, cudaPath, opencl.CUDAKernelSource(), opencl.CUDABuildOptions(opencl.DeviceInfo{FP64: fp64}))
		funcs := ptxFuncs(ptx)
		for _, name := range opencl.KernelNames {
			assert.True(t, funcs[name] != nil && funcs[name].entry, "fp64 %v: no unmangled .entry %s( in the PTX", fp64, name)
		}
	}
}

// nvrtcOrSkip skips t when NVRTC cannot be loaded (failing it in CI, where
// .ci/run installs Debian's libnvrtc11.2 from non-free).
func nvrtcOrSkip(t *testing.T, err error) {
	t.Helper()
	var le *opencl.LibraryError
	if err == nil || !errors.As(err, &le) {
		return
	}
	if ocltest.InCI() {
		t.Fatalf("NVRTC is required in CI (CI=true): %v (Debian package libnvrtc11.2, in non-free)", err)
	}
	t.Skipf("NVRTC not available, skipping (CI=true makes this a failure): %v", err)
}

var (
	// ptxCall is a call instruction's callee (clang writes a call over
	// several lines).
	ptxCall = regexp.MustCompile(`\bcall(?:\.uni)?\s+(?:\(\s*\w+\s*\),\s*)?([A-Za-z_$][\w$]*)`)
	// ptxasEntry, ptxasFrame and ptxasUsed read ptxas's -v report.
	ptxasEntry = regexp.MustCompile(`Compiling entry function '(\w+)' for '(\w+)'`)
	ptxasFrame = regexp.MustCompile(`Function properties for (\w+)\s*\n\s*ptxas\s+\.\s+(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads`)
	approxOp   = regexp.MustCompile(`\.approx\b`)
)

// mathCallers are the functions of a PTX module made without libdevice
// (clang's, where every math function stays an .extern call) that call a
// math function, directly or through other functions of the module.
func mathCallers(ptx string) map[string]bool {
	ext := map[string]bool{}
	for _, m := range externFunc.FindAllStringSubmatch(ptx, -1) {
		ext[m[1]] = true
	}
	calls := map[string][]string{}
	for name, f := range ptxFuncs(ptx) {
		for _, m := range ptxCall.FindAllStringSubmatch(f.text, -1) {
			calls[name] = append(calls[name], m[1])
		}
	}
	out := map[string]bool{}
	for changed := true; changed; {
		changed = false
		for name, callees := range calls {
			for _, c := range callees {
				if !out[name] && (ext[c] || out[c]) {
					out[name], changed = true, true
				}
			}
		}
	}
	return out
}

// TestKernelsCompileWithNVRTC: NVRTC itself — the compiler the CUDA back
// end runs first on a GPU machine, and which needs no GPU — compiles
// CUDAKernelSource with CUDABuildOptions for sm_90 (the H200): it takes
// every option (--device-as-default-execution-space included), the
// translation compiles after NVRTC's own built-in declarations, and its
// assembler fits every kernel in registers, with no spill and no stack
// frame (local memory a kernel would silently pay for on every launch).
// Its PTX for compute_90 then holds every kernel as an unmangled entry
// with OpenCL's parameters and OpenCL's numerics: outside the kernels
// that call a math function (libdevice's own code, inside its error
// bounds, uses fma and approximate instructions) and the implicit
// convolution's explicit fma, nothing is contracted, approximated or
// flushed to zero, and division and square root round correctly. Which
// kernels call a math function is read off clang's PTX, where libdevice
// is not linked. CI runs Debian's NVRTC 11.8 (package libnvrtc11.2); a
// GPU machine's CUDA 13 NVRTC runs the same source in `devices --check`.
func TestKernelsCompileWithNVRTC(t *testing.T) {
	src := opencl.CUDAKernelSource()
	kernels := clKernels(opencl.KernelSource())
	file, err := opencl.LoadNVRTC()
	nvrtcOrSkip(t, err)
	require.NoError(t, err)
	t.Logf("NVRTC: %s", file)
	clang := clangCUDA(t)
	for _, fp64 := range []bool{true, false} {
		t.Run(fmt.Sprintf("fp64=%v", fp64), func(t *testing.T) {
			opts := opencl.CUDABuildOptions(opencl.DeviceInfo{FP64: fp64})

			// The CUBIN for sm_90, with ptxas's report.
			cubin, log, err := opencl.NVRTCCompile(src, append(opts[:len(opts):len(opts)], "--gpu-architecture=sm_90", "--ptxas-options=-v"), false)
			require.NoError(t, err)
			require.True(t, len(cubin) > 4 && string(cubin[1:4]) == "ELF", "an sm_90 CUBIN is an ELF image")
			compiled := map[string]bool{}
			for _, m := range ptxasEntry.FindAllStringSubmatch(log, -1) {
				assert.Equal(t, "sm_90", m[2], m[1])
				compiled[m[1]] = true
			}
			for _, name := range opencl.KernelNames {
				assert.True(t, compiled[name], "kernel %s: ptxas did not compile it for sm_90", name)
			}
			frames := ptxasFrame.FindAllStringSubmatch(log, -1)
			assert.NotEmpty(t, frames, "no ptxas report in NVRTC's log:\n%s", log)
			for _, m := range frames {
				assert.Equal(t, []string{"0", "0", "0"}, m[2:], "%s: bytes of stack frame, spill stores, spill loads", m[1])
			}

			// The PTX: the ABI and the numerics.
			ptxImage, _, err := opencl.NVRTCCompile(src, append(opts[:len(opts):len(opts)], "--gpu-architecture=compute_90"), true)
			require.NoError(t, err)
			ptx := strings.TrimRight(string(ptxImage), "\x00")
			funcs := ptxFuncs(ptx)
			checkEntries(t, funcs, kernels, fp64)
			checkAccumulators(t, funcs, fp64)
			math := mathCallers(compileCUDA(t, clang, "", src, opts))
			require.NotEmpty(t, math, "clang's PTX: no kernel calls a math function")
			for _, name := range opencl.KernelNames {
				f := funcs[name]
				if f == nil || math[name] {
					continue
				}
				if explicitFMA[name] {
					contains(t, f.text, "fma.rn.f32", "%s: its explicit fma", name)
				} else {
					assert.Empty(t, fusedOp.FindAllString(f.text, 3), "%s: contracted a·b + c", name)
				}
				assert.Empty(t, approxOp.FindAllString(f.text, 3), "%s: an approximate instruction", name)
				assert.Empty(t, ftzOp.FindAllString(f.text, 3), "%s: subnormals flushed to zero", name)
				for _, m := range roundedOp.FindAllStringSubmatch(f.text, -1) {
					assert.Equal(t, "rn", m[2], "%s: %s not correctly rounded", name, m[0])
				}
			}
		})
	}
}

// TestNVRTCToClangDefaults: the translation gives an option left out
// NVRTC's default, so TestKernelsCompileAsCUDA checks the options the CUDA
// back end passes, not clang's defaults.
func TestNVRTCToClangDefaults(t *testing.T) {
	for _, c := range []struct {
		opts    []string
		want    []string
		wantNot []string
	}{
		{opts: nil, want: []string{"-ffp-contract=fast"}},
		{opts: []string{"--fmad=false"}, want: []string{"-ffp-contract=off"}},
		{opts: []string{"--ftz=true", "--prec-div=false"}, want: []string{"-fgpu-flush-denormals-to-zero", "-nvptx-prec-divf32=1"}},
		{opts: []string{"--prec-sqrt=true", "-DX=1"}, want: []string{"-DX=1"}, wantNot: []string{"-nvptx-prec-sqrtf32=0"}},
	} {
		got, _, err := nvrtcToClang(c.opts)
		require.NoError(t, err, c.opts)
		for _, w := range c.want {
			assert.Contains(t, got, w, c.opts)
		}
		for _, w := range c.wantNot {
			assert.NotContains(t, got, w, c.opts)
		}
	}
	_, _, err := nvrtcToClang([]string{"--use_fast_math"})
	assert.Error(t, err, "an unknown option")
}

// TestCUDAOptionsFromCL: the defines of OpenCL build options reach NVRTC
// (in each spelling OpenCL accepts) and nothing else does; the numerics
// options always follow.
func TestCUDAOptionsFromCL(t *testing.T) {
	numerics := opencl.CUDABuildOptions(opencl.DeviceInfo{})
	for _, c := range []struct {
		cl   string
		want []string
	}{
		{"", nil},
		{"-DLLPFC_FP64=1", []string{"-DLLPFC_FP64=1"}},
		{"-DLLPFC_FP64=1 -cl-fp32-correctly-rounded-divide-sqrt", []string{"-DLLPFC_FP64=1"}},
		{"-D CONV_TM=32 -DCONV_TN=32 -cl-std=CL1.2 -Werror", []string{"-DCONV_TM=32", "-DCONV_TN=32"}},
		{"-DFLAG", []string{"-DFLAG"}},
	} {
		got := opencl.CUDAOptionsFromCL(c.cl)
		assert.Equal(t, append(append([]string{}, c.want...), numerics...), got, "%q", c.cl)
	}
	assert.Equal(t, opencl.CUDAOptionsFromCL("-DLLPFC_FP64=1"), opencl.CUDABuildOptions(opencl.DeviceInfo{FP64: true}))
	for _, o := range numerics {
		assert.False(t, strings.HasPrefix(o, "-arch") || strings.HasPrefix(o, "--gpu-architecture"), "%s: the target is the caller's", o)
	}
}
