package opencl

import (
	"fmt"
	"maps"
	"runtime"
	"slices"
	"sort"
	"strings"
	"unsafe"
)

// CLBlast chooses its SGEMM's tile sizes, vector widths and local-memory
// use from a database of tuned parameters by device; a device it does not
// know (an H200 in CLBlast 1.5) gets its vendor's or the generic defaults,
// tuned for another chip. CLBlastOverrideParameters replaces them at run
// time for one device, per kernel, for every later call in the process
// (CLBlast keys its compiled programs by the parameters, so the next call
// compiles the new ones). The tuning pass (TuneGEMM) searches them on the
// device itself; the OpenCL back end applies a stored result at Open.

// The kernels of CLBlast's SGEMM routine whose parameters are tuned, and
// their parameters, in CLBlast 1.5's database order (src/database/kernels):
// Xgemm is the "indirect" kernel (fast, on operands copied and padded to
// its tiles), XgemmDirect the single kernel for small products, and
// GemmRoutine's XGEMM_MIN_INDIRECT_SIZE the size s below which (m·n·k <
// s³) the direct kernel runs.
const (
	KernelXgemm       = "Xgemm"
	KernelXgemmDirect = "XgemmDirect"
	KernelGemmRoutine = "GemmRoutine"
)

// GEMMParamNames are the parameters of each tuned kernel.
var GEMMParamNames = map[string][]string{
	KernelXgemm:       {"GEMMK", "KREG", "KWG", "KWI", "MDIMA", "MDIMC", "MWG", "NDIMB", "NDIMC", "NWG", "SA", "SB", "STRM", "STRN", "VWM", "VWN"},
	KernelXgemmDirect: {"KWID", "MDIMAD", "MDIMCD", "NDIMBD", "NDIMCD", "PADA", "PADB", "VWMD", "VWND", "WGD"},
	KernelGemmRoutine: {"XGEMM_MIN_INDIRECT_SIZE"},
}

// GEMMParams are overrides of CLBlast's SGEMM parameters: kernel → name →
// value. A kernel that is absent keeps CLBlast's database value; a kernel
// that is present names every one of its parameters (GEMMParamNames).
type GEMMParams map[string]map[string]int

// Clone returns a deep copy.
func (p GEMMParams) Clone() GEMMParams {
	out := GEMMParams{}
	for k, v := range p {
		out[k] = maps.Clone(v)
	}
	return out
}

// String writes the parameters kernel by kernel in database order, e.g.
// "Xgemm{GEMMK=0 KREG=1 …} GemmRoutine{XGEMM_MIN_INDIRECT_SIZE=896}".
func (p GEMMParams) String() string {
	var parts []string
	for _, k := range []string{KernelXgemm, KernelXgemmDirect, KernelGemmRoutine} {
		v, ok := p[k]
		if !ok {
			continue
		}
		var kv []string
		for _, n := range GEMMParamNames[k] {
			kv = append(kv, fmt.Sprintf("%s=%d", n, v[n]))
		}
		parts = append(parts, k+"{"+strings.Join(kv, " ")+"}")
	}
	if len(parts) == 0 {
		return "CLBlast's defaults"
	}
	return strings.Join(parts, " ")
}

// Validate checks the parameters against CLBlast's rules for its kernels
// (the constraints of its tuners, src/tuning/kernels/xgemm.hpp and
// xgemm_direct.hpp: integer tiles per thread, loads that divide the tiles)
// and the device's limits (work-group size, local memory): parameters that
// break them make CLBlast's kernels fail to build or compute wrong
// products, so they are refused before CLBlast sees them.
func (p GEMMParams) Validate(dev DeviceInfo) error {
	kernels := slices.Sorted(maps.Keys(p))
	for _, k := range kernels {
		names, ok := GEMMParamNames[k]
		if !ok {
			return fmt.Errorf("CLBlast GEMM parameters: unknown kernel %q (want %s, %s or %s)", k, KernelXgemm, KernelXgemmDirect, KernelGemmRoutine)
		}
		v := p[k]
		for _, n := range names {
			x, ok := v[n]
			if !ok {
				return fmt.Errorf("CLBlast GEMM parameters: kernel %s lacks %s (a kernel names all of %s)", k, n, strings.Join(names, ", "))
			}
			if x < 0 {
				return fmt.Errorf("CLBlast GEMM parameters: %s.%s = %d, want ≥ 0", k, n, x)
			}
		}
		for n := range v {
			if !slices.Contains(names, n) {
				return fmt.Errorf("CLBlast GEMM parameters: kernel %s has no parameter %q (it has %s)", k, n, strings.Join(names, ", "))
			}
		}
		var err error
		switch k {
		case KernelXgemm:
			err = xgemmRules(v, dev)
		case KernelXgemmDirect:
			err = xgemmDirectRules(v, dev)
		}
		if err != nil {
			return fmt.Errorf("CLBlast GEMM parameters: %s: %w", k, err)
		}
	}
	return nil
}

// rule is one of a kernel's constraints.
type rule struct {
	ok   bool
	what string
}

func firstBroken(rules []rule) error {
	for _, r := range rules {
		if !r.ok {
			return fmt.Errorf("%s", r.what)
		}
	}
	return nil
}

func isFlag(x int) bool  { return x == 0 || x == 1 }
func isWidth(x int) bool { return x == 1 || x == 2 || x == 4 || x == 8 || x == 16 }

// divides reports whether d ≥ 1 divides x.
func divides(x, d int) bool { return d >= 1 && x%d == 0 }

func xgemmRules(v map[string]int, dev DeviceInfo) error {
	mwg, nwg, kwg, kwi := v["MWG"], v["NWG"], v["KWG"], v["KWI"]
	mdimc, ndimc, mdima, ndimb := v["MDIMC"], v["NDIMC"], v["MDIMA"], v["NDIMB"]
	vwm, vwn, kreg := v["VWM"], v["VWN"], v["KREG"]
	rules := []rule{
		{isFlag(v["GEMMK"]) && isFlag(v["SA"]) && isFlag(v["SB"]) && isFlag(v["STRM"]) && isFlag(v["STRN"]), "GEMMK, SA, SB, STRM and STRN are 0 or 1"},
		{isWidth(vwm) && isWidth(vwn), "VWM and VWN are vector widths (1, 2, 4, 8 or 16)"},
		{mwg >= 1 && nwg >= 1 && kwg >= 1 && kwi >= 1 && kreg >= 1 && mdimc >= 1 && ndimc >= 1 && mdima >= 1 && ndimb >= 1, "every size is ≥ 1"},
		{divides(kwg, kwi), "KWI divides KWG (the unrolled k-loop)"},
		{divides(mwg, mdimc*vwm) && divides(nwg, ndimc*vwn), "MDIMC·VWM divides MWG and NDIMC·VWN divides NWG (whole tiles per thread)"},
		{divides(mwg, mdima*vwm) && divides(nwg, ndimb*vwn), "MDIMA·VWM divides MWG and NDIMB·VWN divides NWG (whole loads per thread)"},
	}
	if v["GEMMK"] == 0 {
		rules = append(rules, rule{mdima >= 1 && ndimb >= 1 && divides(kwg, mdimc*ndimc/mdima) && divides(kwg, mdimc*ndimc/ndimb) && (mdimc*ndimc)%mdima == 0 && (mdimc*ndimc)%ndimb == 0,
			"MDIMC·NDIMC/MDIMA and MDIMC·NDIMC/NDIMB divide KWG (the local-memory loads)"})
	} else {
		rules = append(rules, rule{divides(kreg, vwn) && kwg == 1 && mdimc == mdima && ndimc == ndimb,
			"with GEMMK 1: VWN divides KREG, KWG is 1, MDIMA = MDIMC and NDIMB = NDIMC"})
	}
	if dev.MaxWorkGroupSize > 0 {
		rules = append(rules, rule{mdimc*ndimc <= dev.MaxWorkGroupSize, fmt.Sprintf("MDIMC·NDIMC = %d threads, more than the device's work-groups (%d)", mdimc*ndimc, dev.MaxWorkGroupSize)})
	}
	if dev.LocalMemBytes > 0 {
		local := 4 * (v["SA"]*kwg*mwg + v["SB"]*kwg*nwg)
		rules = append(rules, rule{uint64(local) <= dev.LocalMemBytes, fmt.Sprintf("%d bytes of local memory, more than the device's %d", local, dev.LocalMemBytes)})
	}
	return firstBroken(rules)
}

func xgemmDirectRules(v map[string]int, dev DeviceInfo) error {
	wgd, kwid := v["WGD"], v["KWID"]
	mdimcd, ndimcd, mdimad, ndimbd := v["MDIMCD"], v["NDIMCD"], v["MDIMAD"], v["NDIMBD"]
	vwmd, vwnd := v["VWMD"], v["VWND"]
	rules := []rule{
		{isFlag(v["PADA"]) && isFlag(v["PADB"]), "PADA and PADB are 0 or 1"},
		{isWidth(vwmd) && isWidth(vwnd), "VWMD and VWND are vector widths (1, 2, 4, 8 or 16)"},
		{wgd >= 1 && kwid >= 1 && mdimcd >= 1 && ndimcd >= 1 && mdimad >= 1 && ndimbd >= 1, "every size is ≥ 1"},
		{divides(wgd, kwid), "KWID divides WGD (the unrolled k-loop)"},
		{divides(wgd, mdimcd*vwmd) && divides(wgd, ndimcd*vwnd), "MDIMCD·VWMD and NDIMCD·VWND divide WGD (whole tiles per thread)"},
		{divides(wgd, mdimad*vwmd) && divides(wgd, ndimbd*vwnd), "MDIMAD·VWMD and NDIMBD·VWND divide WGD (whole loads per thread)"},
		{(mdimcd*ndimcd)%mdimad == 0 && (mdimcd*ndimcd)%ndimbd == 0 && divides(wgd, mdimcd*ndimcd/mdimad) && divides(wgd, mdimcd*ndimcd/ndimbd),
			"MDIMCD·NDIMCD/MDIMAD and MDIMCD·NDIMCD/NDIMBD divide WGD (the local-memory loads)"},
	}
	if dev.MaxWorkGroupSize > 0 {
		rules = append(rules, rule{mdimcd*ndimcd <= dev.MaxWorkGroupSize, fmt.Sprintf("MDIMCD·NDIMCD = %d threads, more than the device's work-groups (%d)", mdimcd*ndimcd, dev.MaxWorkGroupSize)})
	}
	if dev.LocalMemBytes > 0 {
		local := 4 * (wgd*(wgd+v["PADA"]) + wgd*(wgd+v["PADB"]))
		rules = append(rules, rule{uint64(local) <= dev.LocalMemBytes, fmt.Sprintf("%d bytes of local memory, more than the device's %d", local, dev.LocalMemBytes)})
	}
	return firstBroken(rules)
}

// CLBlast's precision enum: single precision is 32 (bits).
const clblastPrecisionSingle = 32

// OverrideGEMM makes CLBlast run the context's device's SGEMM with the
// parameters p from the next call on, kernel by kernel (after Validate);
// kernels p leaves out keep what CLBlast had. The override belongs to the
// device for the rest of the process, in every context (CLBlast keeps one
// database per device); GEMMOverride reports what this context set. A
// CLBlast without CLBlastOverrideParameters (before 1.5) is an error.
func (c *Context) OverrideGEMM(p GEMMParams) error {
	if c.cu != nil {
		return ErrCUDAGEMM
	}
	if err := loadCLBlastOverride(); err != nil {
		return err
	}
	if err := p.Validate(c.dev); err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errClosed
	}
	blastUsers.Lock()
	defer blastUsers.Unlock()
	kernels := make([]string, 0, len(p))
	for k := range p {
		kernels = append(kernels, k)
	}
	sort.Strings(kernels)
	for _, k := range kernels {
		if err := overrideKernel(c.dev.id, k, p[k]); err != nil {
			return err
		}
	}
	if c.gemm == nil {
		c.gemm = GEMMParams{}
	}
	for k, v := range p.Clone() {
		c.gemm[k] = v
	}
	return nil
}

// GEMMOverride returns the parameters OverrideGEMM set in this context
// (nil when it never did: CLBlast's defaults, unless another context of
// the process overrode them for the same device).
func (c *Context) GEMMOverride() GEMMParams {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gemm == nil {
		return nil
	}
	return c.gemm.Clone()
}

// overrideKernel calls CLBlastOverrideParameters for one kernel: its name
// and the parameters' names as NUL-terminated strings, their values as
// size_t, all pinned while CLBlast reads them (it copies them).
func overrideKernel(dev clDevice, kernel string, v map[string]int) error {
	names := GEMMParamNames[kernel]
	var pin runtime.Pinner
	defer pin.Unpin()
	cstr := func(s string) *byte {
		b := append([]byte(s), 0)
		pin.Pin(&b[0])
		return &b[0]
	}
	ptrs := make([]*byte, len(names))
	vals := make([]uintptr, len(names))
	for i, n := range names {
		ptrs[i] = cstr(n)
		vals[i] = uintptr(v[n])
	}
	pin.Pin(&ptrs[0])
	pin.Pin(&vals[0])
	code := blastOverride(dev, unsafe.Pointer(cstr(kernel)), clblastPrecisionSingle, uintptr(len(names)), unsafe.Pointer(&ptrs[0]), unsafe.Pointer(&vals[0]))
	return check(code, "CLBlastOverrideParameters", kernel)
}
