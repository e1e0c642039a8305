package opencl

import (
	"fmt"
	"slices"
	"strings"
)

// ConvPath is how the library runs Conv2d and its two product gradients:
// which of the three passes take the implicit-GEMM path (one bit a pass),
// the others im2col. The im2col path unfolds a chunk of images into a
// workspace and hands it to CLBlast's SGEMM; the implicit-GEMM path
// (kernels/conv_implicit.cl) does the unfolding inside the product's tile
// loads, so the unfolded matrix (C·K² × N·OH·OW values, written once and
// read once per pass) is never stored: on a GPU the two differ in memory
// traffic, launches and parallelism, not in what they compute, and by
// pass (the filter gradient's product has few output tiles and a long
// reduction, which only the implicit path splits). The path is a variant
// the GPU kit sweeps, so the library takes it from its user (the OpenCL
// back end, from LLPFC_OPENCL_CONV) and never chooses by itself.
type ConvPath uint8

// The passes of a convolution, as ConvPath's bits.
const (
	// ConvImplicitForward: y = conv(x, w) + b by conv_igemm_fwd.
	ConvImplicitForward ConvPath = 1 << iota
	// ConvImplicitInput: ∂L/∂x by conv_igemm_bwd_data.
	ConvImplicitInput
	// ConvImplicitFilter: ∂L/∂w by conv_igemm_bwd_filter and its
	// reduction.
	ConvImplicitFilter
)

const (
	// ConvIm2col: im2col, CLBlast SGEMM, reorder, every pass (the default).
	ConvIm2col ConvPath = 0
	// ConvImplicit: one implicit-GEMM kernel per pass (two for the
	// filter's gradient: the sliced product and its reduction).
	ConvImplicit = ConvImplicitForward | ConvImplicitInput | ConvImplicitFilter
	// ConvCuDNN: every pass one call of NVIDIA's cuDNN (cuda_dnn.go), on
	// the CUDA driver only; no pass is implicit.
	ConvCuDNN ConvPath = 1 << 3
)

// convPassNames are the passes' names in LLPFC_OPENCL_CONV's per-pass
// form, in ConvPath's bit order.
var convPassNames = []string{"fwd", "dx", "dw"}

// Implicit reports whether pass (one of ConvImplicitForward,
// ConvImplicitInput, ConvImplicitFilter) runs on the implicit path.
func (p ConvPath) Implicit(pass ConvPath) bool { return p&pass != 0 }

// String is the path's name as LLPFC_OPENCL_CONV spells it: "im2col",
// "implicit", or "implicit:" and the implicit passes joined by "+" in the
// order fwd, dx, dw ("implicit:dw").
func (p ConvPath) String() string {
	switch {
	case p == ConvIm2col:
		return "im2col"
	case p == ConvImplicit:
		return "implicit"
	case p == ConvCuDNN:
		return "cudnn"
	case p&^ConvImplicit != 0:
		return fmt.Sprintf("ConvPath(%d)", int(p))
	}
	var passes []string
	for i, n := range convPassNames {
		if p&(1<<i) != 0 {
			passes = append(passes, n)
		}
	}
	return "implicit:" + strings.Join(passes, "+")
}

// ParseConvPath reads a path's name: "im2col" ("" too, the default),
// "implicit" (every pass), "implicit:" and some of fwd, dx and dw joined
// by "+" (those passes implicit, the others im2col), or "cudnn" (every
// pass on cuDNN, a CUDA device's only).
func ParseConvPath(s string) (ConvPath, error) {
	switch s {
	case "", "im2col":
		return ConvIm2col, nil
	case "implicit":
		return ConvImplicit, nil
	case "cudnn":
		return ConvCuDNN, nil
	}
	bad := fmt.Errorf("%q is no convolution path (im2col, implicit, implicit: and passes among fwd, dx, dw joined by + (e.g. implicit:dw), or cudnn)", s)
	list, ok := strings.CutPrefix(s, "implicit:")
	if !ok || list == "" {
		return 0, bad
	}
	var p ConvPath
	for _, n := range strings.Split(list, "+") {
		i := slices.Index(convPassNames, n)
		if i < 0 || p&(1<<i) != 0 {
			return 0, bad
		}
		p |= 1 << i
	}
	return p, nil
}

// The implicit-GEMM kernels' tile: a work-group of (TM/RM)×(TN/RN) items
// computes a TM×TN output tile, TK values of the reduction at a time. They
// are conv_implicit.cl's defaults (CONV_TM …), which the launches must
// agree with (TestImplicitTileConstants reads them from the source).
const (
	ImplicitTM = 64
	ImplicitTN = 64
	ImplicitTK = 16
	ImplicitRM = 4
	ImplicitRN = 4
)

// implicitTargetGroups and implicitMaxSlices size the filter gradient's
// split reduction: a geometry with few output tiles (O × C·K² is small in
// WRN-16-4's first group: 64 × 576 is 9 tiles of 64×64, against a
// reduction over N·OH·OW = 131072 values at batch 128) is split into
// enough slices to give a GPU's ~132 multiprocessors a few groups each,
// and never into more than implicitMaxSlices (the partial sums cost
// slices × O·C·K² values of workspace and one reduction pass).
const (
	implicitTargetGroups = 512
	implicitMaxSlices    = 64
)

// implicitArgs are the geometry arguments of the implicit kernels after
// their buffers (extra: the forward pass's has_bias).
func (g ConvGeom) implicitArgs(extra ...any) []any {
	return append([]any{g.N, g.C, g.H, g.W, g.O, g.K, g.Pad, g.Stride, g.OutH(), g.OutW()}, extra...)
}

// FilterSlices returns how the filter gradient's reduction over
// N·OutH·OutW values is split on the implicit path: slices of sliceLen
// values (a multiple of ImplicitTK; the last may be shorter), a function
// of the geometry alone, so the order of the sums is too.
func (g ConvGeom) FilterSlices() (slices, sliceLen int) {
	ckk, hw, _, _ := g.dims()
	k := g.N * hw
	tiles := ceilDiv(g.O, ImplicitTM) * ceilDiv(ckk, ImplicitTN)
	steps := ceilDiv(k, ImplicitTK)
	s := max(1, min(ceilDiv(implicitTargetGroups, tiles), implicitMaxSlices, steps))
	sliceLen = ceilDiv(steps, s) * ImplicitTK
	return ceilDiv(k, sliceLen), sliceLen
}

// implicitWorkspace is the number of values the implicit path's workspace
// holds for g: the filter gradient's partial sums when it is split, else
// none (the forward pass and the input's gradient need none).
func (g ConvGeom) implicitWorkspace() int {
	s, _ := g.FilterSlices()
	if s == 1 {
		return 0
	}
	ckk, _, _, _ := g.dims()
	return s * g.O * ckk
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// implicit launches an implicit-GEMM kernel over an m×n product in
// slices slices: one work-group per TM×TN tile and slice.
func (l *Lib) implicit(name string, n, m, slices int, args ...any) error {
	wgN, wgM := ImplicitTN/ImplicitRN, ImplicitTM/ImplicitRM
	k := l.k[name]
	if k.MaxWorkGroupSize() < wgN*wgM {
		return fmt.Errorf("opencl: %s: the device runs work-groups of at most %d items, the implicit convolution needs %d (use LLPFC_OPENCL_CONV=im2col)", name, k.MaxWorkGroupSize(), wgN*wgM)
	}
	return k.Launch([]int{ceilDiv(n, ImplicitTN) * wgN, ceilDiv(m, ImplicitTM) * wgM, slices}, []int{wgN, wgM, 1}, args...)
}

// implicitGradFilter enqueues the filter gradient on the implicit path:
// the sliced product into the workspace (into dw when there is one
// slice) and the slices' sum. l.mu must be held.
func (l *Lib) implicitGradFilter(x, dy, dw *Buffer, g ConvGeom) error {
	ckk, _, _, _ := g.dims()
	slices, sliceLen := g.FilterSlices()
	part := dw
	if slices > 1 {
		var err error
		if part, err = l.workspace(&l.wsA, slices*g.O*ckk); err != nil {
			return err
		}
	}
	if err := l.implicit("conv_igemm_bwd_filter", ckk, g.O, slices, append([]any{x, dy, part}, g.implicitArgs(sliceLen)...)...); err != nil {
		return err
	}
	if slices == 1 {
		return nil
	}
	return l.elem("conv_igemm_reduce", g.O*ckk, part, dw, slices, g.O*ckk)
}
