package opencl

import "math/rand/v2"

// What the tests of package opencl_test reach inside.

// KnownXgemm and KnownXgemmDirect are the tuner's first candidates:
// entries of CLBlast's own database.
var KnownXgemm, KnownXgemmDirect = knownXgemm, knownXgemmDirect

// ParamsOf builds a kernel's parameters from values in GEMMParamNames
// order.
func ParamsOf(kernel string, vals ...int) map[string]int { return params(kernel, vals...) }

// OverrideUnchecked hands CLBlast one kernel's parameters without
// Validate, to show that an override reaches the products.
func (c *Context) OverrideUnchecked(kernel string, v map[string]int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return overrideKernel(c.dev.id, kernel, v)
}

// Candidates returns the first n candidates the tuner would time for
// kernel on dev.
func Candidates(kernel string, dev DeviceInfo, seed uint64, n int) []map[string]int {
	rng := rand.New(rand.NewPCG(seed, 0x67656d6d))
	next := xgemmCandidates(dev, rng)
	if kernel == KernelXgemmDirect {
		next = xgemmDirectCandidates(dev, rng)
	}
	var out []map[string]int
	for len(out) < n {
		c, ok := next()
		if !ok {
			break
		}
		out = append(out, c)
	}
	return out
}

// Release frees a program built by a test.
func (p *Program) Release() error { return p.release() }

// KernelNames are the kernels the library looks up when it is built.
var KernelNames = kernelNames

// LoadNVRTC loads NVRTC as the CUDA back end does (LLPFC_NVRTC_LIB, else
// the newest soname found) and returns the library's file; no GPU needed.
func LoadNVRTC() (string, error) {
	err := loadNVRTC()
	return nvrtcFile, err
}

// NVRTCCompile compiles src with the NVRTC LoadNVRTC loads and returns the
// image (the PTX when ptx) and NVRTC's log.
func NVRTCCompile(src string, options []string, ptx bool) (image []byte, log string, err error) {
	if err := loadNVRTC(); err != nil {
		return nil, "", err
	}
	return nvrtcCompileLog(src, options, ptx)
}

// ChannelSlices and SliceGroups are the sliced channel reductions' plan.
var ChannelSlices, SliceGroups = channelSlices, sliceGroups

// MomentSlices is how many slices the library's batch-norm statistics
// take for g's first rows rows.
func (l *Lib) MomentSlices(g BNGeom, rows int) int {
	s, _ := l.slices(g.C, rows*g.HW, "bn_moments_part")
	return s
}
