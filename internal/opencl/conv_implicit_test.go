package opencl_test

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
	"github.com/llpfc/llpfc/internal/opencl"
)

// implicitGeoms are the implicit path's table: stride 1, 2 and 3, padding
// 0 to 2, filters 1, 3 and 5, batches 1 to 5, and sizes that are no
// multiple of a tile — O over one 64-row tile, C·K² (the forward
// reduction, the filter gradient's columns) over one 64-column tile and
// over many 16-deep k-steps, and filter-gradient reductions long enough
// to be split into slices, one with a short last slice.
var implicitGeoms = append(append([]opencl.ConvGeom(nil), convGeoms...),
	opencl.ConvGeom{N: 4, C: 7, H: 11, W: 10, O: 70, K: 3, Pad: 1, Stride: 2},
	opencl.ConvGeom{N: 1, C: 20, H: 9, W: 9, O: 9, K: 5, Pad: 2, Stride: 2},
	opencl.ConvGeom{N: 5, C: 3, H: 16, W: 16, O: 5, K: 3, Pad: 1, Stride: 1},
	opencl.ConvGeom{N: 5, C: 2, H: 15, W: 15, O: 3, K: 3, Pad: 1, Stride: 1},
	opencl.ConvGeom{N: 2, C: 5, H: 10, W: 9, O: 66, K: 1, Pad: 0, Stride: 1},
	opencl.ConvGeom{N: 3, C: 2, H: 12, W: 11, O: 4, K: 5, Pad: 1, Stride: 2},
)

// implicitTol is the relative tolerance of a float32 sum of n terms
// against the float64 reference, relative to Σ|term| (mismatch's scale):
// the classical bound γₙ ≈ n·2⁻²⁴ of recursive summation (each fma rounds
// once; the filter gradient's slices and their reduction are a
// reordering of the same n terms, within the same bound), twice for
// margin, and never below the suite's rtol. A wrong index moves a result
// by a whole term, far above it.
func implicitTol(n int) float64 {
	return max(rtol, 2*float64(n)*math.Pow(2, -24))
}

// withConvPath runs f with the shared library on path p.
func withConvPath(l *opencl.Lib, p opencl.ConvPath, f func()) {
	old := l.Conv
	l.Conv = p
	defer func() { l.Conv = old }()
	f()
}

// runImplicit runs the three passes of g on the implicit path (and the
// bias's gradient, which both paths share) and compares them with the
// direct convolution's float64 reference; it returns the first mismatch.
func runImplicit(t *testing.T, l *opencl.Lib, g opencl.ConvGeom, x, w, b, dy []float32) string {
	t.Helper()
	xb, wb, dyb := upload(t, l, x), upload(t, l, w), upload(t, l, dy)
	var bb *opencl.Buffer
	if b != nil {
		bb = upload(t, l, b)
	}
	yb, dxb, dwb := alloc(t, l, len(dy)), alloc(t, l, len(x)), alloc(t, l, len(w))
	withConvPath(l, opencl.ConvImplicit, func() {
		must(t, l.Conv2d(xb, wb, bb, yb, g))
		must(t, l.Conv2dGradInput(wb, dyb, dxb, g))
		must(t, l.Conv2dGradFilter(xb, dyb, dwb, g))
	})
	ref := convRef(g, x, w, b, dy, 0, false)
	ho, wo := g.OutH(), g.OutW()
	y, dx, dw := download(t, yb, len(dy)), download(t, dxb, len(x)), download(t, dwb, len(w))
	for _, c := range []struct {
		what       string
		got        []float32
		want, scal []float64
		terms      int
	}{
		{"forward", y, ref.y, ref.ys, g.C*g.K*g.K + 1},
		{"∂x", dx, ref.dx, ref.dxs, g.O * g.K * g.K},
		{"∂w", dw, ref.dw, ref.dws, g.N * ho * wo},
	} {
		if m := mismatchTol(c.got, c.want, c.scal, implicitTol(c.terms)); m != "" {
			return fmt.Sprintf("%+v %s: %s", g, c.what, m)
		}
	}
	return ""
}

// TestImplicitConvMatchesTheDirectConvolution: on the implicit path the
// forward pass, the input's gradient and the filter's gradient of every
// table geometry, with and without a bias, are the direct convolution's
// within implicitTol — and the comparison is sharp enough to see a
// padding off by one or a flipped kernel in each.
func TestImplicitConvMatchesTheDirectConvolution(t *testing.T) {
	l := testLib(t)
	rng := newRNG(t)
	split := false
	for _, g := range implicitGeoms {
		if s, _ := g.FilterSlices(); s > 1 {
			split = true
		}
		for _, bias := range []bool{true, false} {
			x := randn(rng, g.N*g.C*g.H*g.W, -1, 1)
			w := randn(rng, g.O*g.C*g.K*g.K, -1, 1)
			dy := randn(rng, g.N*g.O*g.OutH()*g.OutW(), -1, 1)
			var b []float32
			if bias {
				b = randn(rng, g.O, -1, 1)
			}
			if m := runImplicit(t, l, g, x, w, b, dy); m != "" {
				t.Errorf("bias=%t: %s", bias, m)
			}
		}
	}
	if !split {
		t.Error("no table geometry splits the filter gradient's reduction into slices")
	}
}

// TestImplicitConvDetectsBugs: the implicit path's outputs, compared with
// references of realistic bugs, differ from them beyond the tolerance (a
// padding off by one, a flipped kernel), so the comparison above would
// catch them.
func TestImplicitConvDetectsBugs(t *testing.T) {
	l := testLib(t)
	rng := newRNG(t)
	g := opencl.ConvGeom{N: 2, C: 3, H: 9, W: 8, O: 5, K: 3, Pad: 1, Stride: 2}
	x := randn(rng, g.N*g.C*g.H*g.W, -1, 1)
	w := randn(rng, g.O*g.C*g.K*g.K, -1, 1)
	dy := randn(rng, g.N*g.O*g.OutH()*g.OutW(), -1, 1)
	xb, wb, dyb := upload(t, l, x), upload(t, l, w), upload(t, l, dy)
	yb, dxb, dwb := alloc(t, l, len(dy)), alloc(t, l, len(x)), alloc(t, l, len(w))
	withConvPath(l, opencl.ConvImplicit, func() {
		must(t, l.Conv2d(xb, wb, nil, yb, g))
		must(t, l.Conv2dGradInput(wb, dyb, dxb, g))
		must(t, l.Conv2dGradFilter(xb, dyb, dwb, g))
	})
	y, dx, dw := download(t, yb, len(dy)), download(t, dxb, len(x)), download(t, dwb, len(w))
	ref := convRef(g, x, w, nil, dy, 0, false)
	off, fl := convRef(g, x, w, nil, dy, 1, false), convRef(g, x, w, nil, dy, 0, true)
	tol := implicitTol(g.N * g.OutH() * g.OutW())
	for _, c := range []struct {
		bug        string
		got        []float32
		wrong, scl []float64
	}{
		{"padding off by one (forward)", y, off.y, ref.ys}, {"padding off by one (∂x)", dx, off.dx, ref.dxs},
		{"padding off by one (∂w)", dw, off.dw, ref.dws}, {"a flipped kernel (forward)", y, fl.y, ref.ys},
		{"a flipped kernel (∂x)", dx, fl.dx, ref.dxs}, {"a flipped kernel (∂w)", dw, fl.dw, ref.dws},
	} {
		if mismatchTol(c.got, c.wrong, c.scl, tol) == "" {
			t.Errorf("the comparison does not detect %s", c.bug)
		}
	}
}

// TestPropertyImplicitConv: gopter-drawn geometries (batch 1–5, C 1–9,
// H and W 1–12, O 1–80, filters 1, 3 and 5, padding 0–2, stride 1–3;
// those with no output are skipped) give the direct convolution's passes
// on the implicit path.
func TestPropertyImplicitConv(t *testing.T) {
	l := testLib(t)
	rng := newRNG(t)
	params := gopter.DefaultTestParameters()
	params.MinSuccessfulTests = 30
	params.Rng.Seed(7)
	p := gopter.NewProperties(params)
	p.Property("implicit = direct", prop.ForAll(func(n, c, h, w, o, k, pad, stride int) bool {
		g := opencl.ConvGeom{N: n, C: c, H: h, W: w, O: o, K: k, Pad: pad, Stride: stride}
		if g.OutH() < 1 || g.OutW() < 1 || h+2*pad < k || w+2*pad < k {
			return true
		}
		x := randn(rng, n*c*h*w, -1, 1)
		wt := randn(rng, o*c*k*k, -1, 1)
		dy := randn(rng, n*o*g.OutH()*g.OutW(), -1, 1)
		if m := runImplicit(t, l, g, x, wt, randn(rng, o, -1, 1), dy); m != "" {
			t.Log(m)
			return false
		}
		return true
	}, gen.IntRange(1, 5), gen.IntRange(1, 9), gen.IntRange(1, 12), gen.IntRange(1, 12), gen.IntRange(1, 80),
		gen.OneConstOf(1, 3, 5), gen.IntRange(0, 2), gen.IntRange(1, 3)))
	p.TestingRun(t)
}

// TestImplicitFilterGradientIsDeterministic: the split filter gradient
// gives the same bits on every run (no atomics; a fixed order of slices),
// and its slices cover the reduction exactly once.
func TestImplicitFilterGradientIsDeterministic(t *testing.T) {
	l := testLib(t)
	rng := newRNG(t)
	g := opencl.ConvGeom{N: 5, C: 2, H: 15, W: 15, O: 3, K: 3, Pad: 1, Stride: 1}
	s, sl := g.FilterSlices()
	k := g.N * g.OutH() * g.OutW()
	if s < 2 || sl%opencl.ImplicitTK != 0 || s*sl < k || (s-1)*sl >= k {
		t.Fatalf("%+v: %d slices of %d do not split a reduction of %d", g, s, sl, k)
	}
	x, dy := randn(rng, g.N*g.C*g.H*g.W, -1, 1), randn(rng, g.N*g.O*g.OutH()*g.OutW(), -1, 1)
	xb, dyb := upload(t, l, x), upload(t, l, dy)
	var first []float32
	for range 3 {
		dwb := alloc(t, l, g.O*g.C*g.K*g.K)
		withConvPath(l, opencl.ConvImplicit, func() { must(t, l.Conv2dGradFilter(xb, dyb, dwb, g)) })
		dw := download(t, dwb, g.O*g.C*g.K*g.K)
		if first == nil {
			first = dw
		} else {
			checkExact(t, "a second run of the filter gradient", dw, first)
		}
	}
}

// TestImplicitTileConstants: the host's tile sizes, which size the
// launches, are conv_implicit.cl's defaults.
func TestImplicitTileConstants(t *testing.T) {
	src := opencl.KernelSource()
	for name, want := range map[string]int{"CONV_TM": opencl.ImplicitTM, "CONV_TN": opencl.ImplicitTN,
		"CONV_TK": opencl.ImplicitTK, "CONV_RM": opencl.ImplicitRM, "CONV_RN": opencl.ImplicitRN} {
		m := regexp.MustCompile(`#define ` + name + ` (\d+)`).FindStringSubmatch(src)
		if m == nil {
			t.Errorf("conv_implicit.cl defines no %s", name)
			continue
		}
		if v, _ := strconv.Atoi(m[1]); v != want {
			t.Errorf("%s is %d in the kernels, %d on the host", name, v, want)
		}
	}
}

// TestParseConvPath: the two names and the empty default read back, and
// anything else is an error that quotes it.
func TestParseConvPath(t *testing.T) {
	for s, want := range map[string]opencl.ConvPath{"": opencl.ConvIm2col, "im2col": opencl.ConvIm2col, "implicit": opencl.ConvImplicit,
		"implicit:dw": opencl.ConvImplicitFilter, "implicit:fwd+dx": opencl.ConvImplicitForward | opencl.ConvImplicitInput,
		"implicit:fwd+dw": opencl.ConvImplicitForward | opencl.ConvImplicitFilter, "cudnn": opencl.ConvCuDNN} {
		p, err := opencl.ParseConvPath(s)
		if err != nil || p != want {
			t.Errorf("ParseConvPath(%q) = %v, %v; want %v", s, p, err, want)
		}
		if s != "" && p.String() != s {
			t.Errorf("%v names itself %q, want %q", p, p.String(), s)
		}
	}
	for _, bad := range []string{"Implicit", "implicit:", "implicit:dw+dw", "implicit:DW", "implicit:fwd+", "im2col:dw", "cuDNN", "cudnn:dw"} {
		if _, err := opencl.ParseConvPath(bad); err == nil || !regexp.MustCompile(regexp.QuoteMeta(fmt.Sprintf("%q", bad))+`.*im2col, implicit, implicit: .*, or cudnn\)`).MatchString(err.Error()) {
			t.Errorf("ParseConvPath(%q): %v", bad, err)
		}
	}
	// Another order of the passes is the same path, named in the order fwd, dx, dw.
	if p, err := opencl.ParseConvPath("implicit:dw+fwd"); err != nil || p.String() != "implicit:fwd+dw" {
		t.Errorf("ParseConvPath(implicit:dw+fwd) = %v, %v", p, err)
	}
	if p, _ := opencl.ParseConvPath("implicit:fwd+dx+dw"); p != opencl.ConvImplicit || p.String() != "implicit" {
		t.Errorf("every pass named is %v, want implicit", p)
	}
	// cuDNN's path takes no pass implicit (each of its passes is a cuDNN call)
	for _, pass := range []opencl.ConvPath{opencl.ConvImplicitForward, opencl.ConvImplicitInput, opencl.ConvImplicitFilter} {
		if opencl.ConvCuDNN.Implicit(pass) {
			t.Errorf("cudnn takes pass %v implicit", pass)
		}
	}
}

// TestImplicitWorkspaceBytes: the memory check's workspace on the
// implicit path is the filter gradient's partial sums alone — for
// WRN-16-4's widest layer at batch 128, 57 slices of 64×576 values, not
// the im2col path's 576 × 131072 unfolded values and 64 × 131072 rows —
// and nothing for a geometry whose reduction is not split. (The im2col
// path's is chunked to WSMax; at its smallest default it is still ≥ 4×.)
func TestImplicitWorkspaceBytes(t *testing.T) {
	l := testLib(t)
	wide := opencl.ConvGeom{N: 128, C: 64, H: 32, W: 32, O: 64, K: 3, Pad: 1, Stride: 1}
	small := opencl.ConvGeom{N: 1, C: 1, H: 4, W: 4, O: 1, K: 1, Pad: 0, Stride: 1}
	if s, _ := small.FilterSlices(); s != 1 {
		t.Fatalf("%+v splits into %d slices", small, s)
	}
	defer func(old int) { l.WSMax = old }(l.WSMax)
	l.WSMax = 1 << 24 // the smallest default (64 MiB): chunks of 25 images
	var im2col, implicit, one int64
	withConvPath(l, opencl.ConvIm2col, func() { im2col = l.WorkspaceBytes([]opencl.ConvGeom{wide}) })
	withConvPath(l, opencl.ConvImplicit, func() {
		implicit = l.WorkspaceBytes([]opencl.ConvGeom{wide, small})
		one = l.WorkspaceBytes([]opencl.ConvGeom{small})
	})
	s, _ := wide.FilterSlices()
	if s != 57 || implicit != int64(4*s*64*576) || one != 0 {
		t.Errorf("implicit workspace: %d slices, %d bytes (want 57 and %d), %d for an unsplit reduction", s, implicit, 4*57*64*576, one)
	}
	if implicit*4 > im2col {
		t.Errorf("implicit workspace %d bytes, im2col's %d: not the smaller by far", implicit, im2col)
	}
	// Pass by pass: the im2col passes' workspaces and the filter
	// gradient's partial sums share wsA, which grows to the larger, and
	// the rows' wsB stays im2col's.
	var dw, fwdDx int64
	withConvPath(l, opencl.ConvImplicitFilter, func() { dw = l.WorkspaceBytes([]opencl.ConvGeom{wide}) })
	withConvPath(l, opencl.ConvImplicitForward|opencl.ConvImplicitInput, func() { fwdDx = l.WorkspaceBytes([]opencl.ConvGeom{wide}) })
	if fwdDx != im2col || dw != im2col {
		t.Errorf("mixed paths' workspaces %d (implicit:dw) and %d (implicit:fwd+dx) bytes, want im2col's %d (its col buffer outgrows the partial sums)", dw, fwdDx, im2col)
	}
}

// TestCuDNNPathDispatches: on cuDNN's path every pass goes to cuDNN (on an
// OpenCL device, the error that cuDNN runs on the CUDA driver only) and
// none falls through to im2col, whose outputs stay untouched; the memory
// plan counts cuDNN's workspace bound. (The path itself runs on the CUDA
// fake: TestCuDNNOnAFake.)
func TestCuDNNPathDispatches(t *testing.T) {
	l := testLib(t)
	g := opencl.ConvGeom{N: 2, C: 3, H: 5, W: 5, O: 4, K: 3, Pad: 1, Stride: 1}
	rng := newRNG(t)
	x, w, dy := randn(rng, 2*3*25, -1, 1), randn(rng, 4*3*9, -1, 1), randn(rng, 2*4*25, -1, 1)
	xb, wb, dyb, bb := upload(t, l, x), upload(t, l, w), upload(t, l, dy), upload(t, l, randn(rng, 4, -1, 1))
	sentinel := func(n int) *opencl.Buffer {
		v := make([]float32, n)
		for i := range v {
			v[i] = 7
		}
		return upload(t, l, v)
	}
	yb, dxb, dwb := sentinel(len(dy)), sentinel(len(x)), sentinel(len(w))
	withConvPath(l, opencl.ConvCuDNN, func() {
		for name, run := range map[string]func() error{
			"forward":     func() error { return l.Conv2d(xb, wb, bb, yb, g) },
			"∂x":          func() error { return l.Conv2dGradInput(wb, dyb, dxb, g) },
			"∂w":          func() error { return l.Conv2dGradFilter(xb, dyb, dwb, g) },
			"no bias fwd": func() error { return l.Conv2d(xb, wb, nil, yb, g) },
		} {
			if err := run(); err == nil || !strings.Contains(err.Error(), "CUDA driver only") {
				t.Errorf("%s on cuDNN's path on OpenCL: %v, want the CUDA-only error", name, err)
			}
		}
		if got := l.WorkspaceBytes([]opencl.ConvGeom{g}); got != 1<<30 {
			t.Errorf("WorkspaceBytes on cuDNN's path = %d, want cuDNN's bound 1 GiB", got)
		}
	})
	for name, b := range map[string]*opencl.Buffer{"y": yb, "dx": dxb, "dw": dwb} {
		for i, v := range download(t, b, b.Len()) {
			if v != 7 {
				t.Fatalf("%s[%d] = %g: a pass ran on another path", name, i, v)
			}
		}
	}
}
