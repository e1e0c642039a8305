package opencl

import (
	"math"
	"math/bits"
	"math/rand/v2"
	"os"
	"testing"
	"unsafe"
)

// TestCuDNNOnAFake runs cuDNN's convolutions (cuda_dnn.go) against the
// fake of testdata/fakecuda.c, whose cuDNN keeps what each descriptor was
// set to, accepts only the one algorithm the choice must make, refuses a
// call before CUDNN_FMA_MATH, off the stream, on an unbound thread or with
// too small a workspace, and computes what cuDNN's documentation says
// each call computes. Each pass of several geometries (strides, padding,
// 1×1 and 3×3 filters, with and without bias) must equal a direct
// float64 convolution written here; every descriptor and the workspace
// must be released with the context. What it cannot show is that cuDNN
// itself agrees (`llpfc devices --check cuda` with LLPFC_OPENCL_CONV=cudnn
// on a GPU: the kit's `check cuda cudnn`).
func TestCuDNNOnAFake(t *testing.T) {
	if so := os.Getenv("LLPFC_TEST_FAKE_CUDNN"); so != "" {
		cudnnFakeChild(t, so)
		return
	}
	so := buildFakeCUDA(t)
	runFakeChild(t, "TestCuDNNOnAFake", so, "LLPFC_TEST_FAKE_CUDNN="+so)
}

func cudnnFakeChild(t *testing.T, so string) {
	var liveDNN, liveAllocs func() int32
	if err := bindLibrary(so, "", "", []symbol{{"fake_live_dnn", &liveDNN}, {"fake_live_allocs", &liveAllocs}}); err != nil {
		t.Fatal(err)
	}
	if v, err := CuDNNAvailable(); err != nil || v != "9.13.0" {
		t.Fatalf("CuDNNAvailable: %q, %v", v, err)
	}
	live0 := LiveObjects()
	ctx, err := Open("cuda")
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 11))
	geos := []ConvGeom{
		{N: 2, C: 3, H: 5, W: 5, O: 4, K: 3, Pad: 1, Stride: 1},
		{N: 1, C: 2, H: 7, W: 6, O: 3, K: 3, Pad: 1, Stride: 2},
		{N: 3, C: 4, H: 4, W: 4, O: 2, K: 1, Pad: 0, Stride: 2},
		{N: 2, C: 1, H: 6, W: 6, O: 2, K: 3, Pad: 0, Stride: 1},
	}
	for i, g := range geos {
		x := randF32(rng, g.N*g.C*g.H*g.W)
		w := randF32(rng, g.O*g.C*g.K*g.K)
		b := randF32(rng, g.O)
		dy := randF32(rng, g.N*g.O*g.OutH()*g.OutW())
		wantY, wantDX, wantDW := directConv(g, x, w, dy)
		var bias *Buffer // odd geometries without a bias
		withBias := i%2 == 0
		if withBias {
			for k := range wantY {
				wantY[k] += float64(b[k/(g.OutH()*g.OutW())%g.O])
			}
		}
		var bufs []*Buffer
		up := func(v []float32) *Buffer {
			buf, err := ctx.AllocFloat32(v)
			if err != nil {
				t.Fatal(err)
			}
			bufs = append(bufs, buf)
			return buf
		}
		xb, wb, bb, dyb := up(x), up(w), up(b), up(dy)
		// outputs start at garbage: β = 0 must overwrite them
		yb, dxb, dwb := up(randF32(rng, len(wantY))), up(randF32(rng, len(wantDX))), up(randF32(rng, len(wantDW)))
		if withBias {
			bias = bb
		}
		for rep := range 2 { // the second time from the plan kept
			for _, c := range []struct {
				pass       ConvPath
				a, b, bias *Buffer
				out        *Buffer
				want       []float64
				name       string
			}{
				{ConvImplicitForward, xb, wb, bias, yb, wantY, "y"},
				{ConvImplicitInput, wb, dyb, nil, dxb, wantDX, "dx"},
				{ConvImplicitFilter, xb, dyb, nil, dwb, wantDW, "dw"},
			} {
				n, err := ctx.CuDNNWorkspaceBytes(c.pass, g)
				if err != nil {
					t.Fatal(err)
				}
				if n != 4096*(bits.TrailingZeros8(uint8(c.pass))+1) {
					t.Errorf("%+v %s: workspace %d bytes, the fake's algorithm needs %d", g, c.name, n, 4096*(bits.TrailingZeros8(uint8(c.pass))+1))
				}
				ws := up(make([]float32, (n+3)/4))
				if err := ctx.ConvCuDNN(c.pass, g, c.a, c.b, c.bias, c.out, ws); err != nil {
					t.Fatalf("%+v %s: %v", g, c.name, err)
				}
				small := up(make([]float32, (n+3)/4-1))
				if err := ctx.ConvCuDNN(c.pass, g, c.a, c.b, c.bias, c.out, small); err == nil {
					t.Errorf("%+v %s: a workspace of %d bytes taken for %d", g, c.name, 4*small.Len(), n)
				}
				got, err := c.out.Float32s()
				if err != nil {
					t.Fatal(err)
				}
				for k := range c.want {
					if d := math.Abs(float64(got[k]) - c.want[k]); d > 1e-5*math.Max(1, math.Abs(c.want[k])) {
						t.Fatalf("%+v %s (bias %t, call %d)[%d] = %g, want %g", g, c.name, withBias, rep+1, k, got[k], c.want[k])
					}
				}
			}
		}
		for _, buf := range bufs {
			buf.Release()
		}
	}
	if n := len(ctx.cu.cudnn.plans); n != len(geos) {
		t.Errorf("%d plans kept, want one a geometry (%d)", n, len(geos))
	}
	// 5 descriptors a geometry, the handle
	if got, want := liveDNN(), int32(5*len(geos)+1); got != want {
		t.Errorf("%d cuDNN objects live before the context closes, want %d", got, want)
	}
	// the rule cannot change once plans were made by it; the same rule again is no change
	if err := ctx.SetCuDNNAlgos(CuDNNHeuristic); err == nil {
		t.Error("SetCuDNNAlgos changed the rule after cuDNN chose algorithms by the default")
	}
	if err := ctx.SetCuDNNAlgos(CuDNNDeterministic); err != nil {
		t.Errorf("SetCuDNNAlgos with the rule in force: %v", err)
	}
	if err := ctx.Close(); err != nil {
		t.Fatal(err)
	}
	if liveDNN() != 0 || liveAllocs() != 0 || LiveObjects() != live0 {
		t.Errorf("after Close: %d cuDNN objects, %d allocations, %d objects (want 0, 0, %d)", liveDNN(), liveAllocs(), LiveObjects(), live0)
	}
	cudnnOwnPick(t, rng, geos[0])
	if liveDNN() != 0 || liveAllocs() != 0 || LiveObjects() != live0 {
		t.Errorf("after the second context: %d cuDNN objects, %d allocations, %d objects (want 0, 0, %d)", liveDNN(), liveAllocs(), LiveObjects(), live0)
	}
}

// cudnnOwnPick: with CuDNNHeuristic a context takes the first of the fake's
// ranking in FMA math within the bound, the non-deterministic algorithm 0
// that needs no workspace (the default takes algorithm 1 and 4–12 KiB),
// and its passes give the direct convolution's values.
func cudnnOwnPick(t *testing.T, rng *rand.Rand, g ConvGeom) {
	ctx, err := Open("cuda")
	if err != nil {
		t.Fatal(err)
	}
	defer ctx.Close()
	if err := ctx.SetCuDNNAlgos(CuDNNHeuristic); err != nil {
		t.Fatal(err)
	}
	x, w := randF32(rng, g.N*g.C*g.H*g.W), randF32(rng, g.O*g.C*g.K*g.K)
	dy := randF32(rng, g.N*g.O*g.OutH()*g.OutW())
	wantY, wantDX, wantDW := directConv(g, x, w, dy)
	up := func(v []float32) *Buffer {
		buf, err := ctx.AllocFloat32(v)
		if err != nil {
			t.Fatal(err)
		}
		return buf
	}
	xb, wb, dyb := up(x), up(w), up(dy)
	for _, c := range []struct {
		pass      ConvPath
		a, b, out *Buffer
		want      []float64
		name      string
	}{
		{ConvImplicitForward, xb, wb, up(make([]float32, len(wantY))), wantY, "y"},
		{ConvImplicitInput, wb, dyb, up(make([]float32, len(wantDX))), wantDX, "dx"},
		{ConvImplicitFilter, xb, dyb, up(make([]float32, len(wantDW))), wantDW, "dw"},
	} {
		if n, err := ctx.CuDNNWorkspaceBytes(c.pass, g); err != nil || n != 0 {
			t.Fatalf("cuDNN's own pick, %s: workspace %d bytes (%v), want 0: the non-deterministic algorithm ranked first", c.name, n, err)
		}
		if err := ctx.ConvCuDNN(c.pass, g, c.a, c.b, nil, c.out, nil); err != nil {
			t.Fatalf("cuDNN's own pick, %s: %v", c.name, err)
		}
		got, err := c.out.Float32s()
		if err != nil {
			t.Fatal(err)
		}
		for k := range c.want {
			if d := math.Abs(float64(got[k]) - c.want[k]); d > 1e-5*math.Max(1, math.Abs(c.want[k])) {
				t.Fatalf("cuDNN's own pick, %s[%d] = %g, want %g", c.name, k, got[k], c.want[k])
			}
		}
	}
}

func randF32(rng *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.Float64()*2 - 1)
	}
	return v
}

// directConv is the cross-correlation of g (no bias) and its two product
// gradients for the output gradient dy, in float64, one tap at a time.
func directConv(g ConvGeom, x, w, dy []float32) (y, dx, dw []float64) {
	oh, ow := g.OutH(), g.OutW()
	y = make([]float64, g.N*g.O*oh*ow)
	dx = make([]float64, len(x))
	dw = make([]float64, len(w))
	for n := range g.N {
		for o := range g.O {
			for i := range oh {
				for j := range ow {
					yi := ((n*g.O+o)*oh+i)*ow + j
					for c := range g.C {
						for ky := range g.K {
							for kx := range g.K {
								r, s := i*g.Stride-g.Pad+ky, j*g.Stride-g.Pad+kx
								if r < 0 || r >= g.H || s < 0 || s >= g.W {
									continue
								}
								xi, wi := ((n*g.C+c)*g.H+r)*g.W+s, ((o*g.C+c)*g.K+ky)*g.K+kx
								y[yi] += float64(x[xi]) * float64(w[wi])
								dx[xi] += float64(w[wi]) * float64(dy[yi])
								dw[wi] += float64(x[xi]) * float64(dy[yi])
							}
						}
					}
				}
			}
		}
	}
	return y, dx, dw
}

// TestChooseCuDNNAlgo: the choice takes the first of cuDNN's ranking that
// passes every rule, and each rule alone turns an entry down.
func TestChooseCuDNNAlgo(t *testing.T) {
	ok := cudnnAlgoPerf{Algo: 1, Determinism: cudnnDeterministic, MathType: cudnnFMAMath, Memory: 1 << 20}
	with := func(f func(*cudnnAlgoPerf)) cudnnAlgoPerf { a := ok; a.Algo = 0; f(&a); return a }
	// each entry turned down by the default rule; heuristic: whether
	// CuDNNHeuristic, cuDNN's own pick, takes it (only determinism and the
	// transforms are its to drop)
	for _, c := range []struct {
		name      string
		pass      ConvPath
		bad       cudnnAlgoPerf
		heuristic bool
	}{
		{"failed heuristic", ConvImplicitForward, with(func(a *cudnnAlgoPerf) { a.Status = 9 }), false},
		{"non-deterministic", ConvImplicitFilter, with(func(a *cudnnAlgoPerf) { a.Determinism = 0 }), true},
		{"tensor ops (TF32)", ConvImplicitForward, with(func(a *cudnnAlgoPerf) { a.MathType = cudnnTensorOpMath }), false},
		{"tensor ops with conversion", ConvImplicitInput, with(func(a *cudnnAlgoPerf) { a.MathType = cudnnTensorOpMathAllow }), false},
		{"forward FFT", ConvImplicitForward, with(func(a *cudnnAlgoPerf) { a.Algo = 4 }), true},
		{"forward FFT tiling", ConvImplicitForward, with(func(a *cudnnAlgoPerf) { a.Algo = 5 }), true},
		{"∂x FFT", ConvImplicitInput, with(func(a *cudnnAlgoPerf) { a.Algo = 2 }), true},
		{"∂x FFT tiling", ConvImplicitInput, with(func(a *cudnnAlgoPerf) { a.Algo = 3 }), true},
		{"∂w FFT", ConvImplicitFilter, with(func(a *cudnnAlgoPerf) { a.Algo = 2 }), true},
		{"∂w FFT tiling", ConvImplicitFilter, with(func(a *cudnnAlgoPerf) { a.Algo = 6 }), true},
		{"forward non-fused Winograd", ConvImplicitForward, with(func(a *cudnnAlgoPerf) { a.Algo = 7 }), true},
		{"∂x non-fused Winograd", ConvImplicitInput, with(func(a *cudnnAlgoPerf) { a.Algo = 5 }), true},
		{"∂w non-fused Winograd", ConvImplicitFilter, with(func(a *cudnnAlgoPerf) { a.Algo = 5 }), true},
		{"non-deterministic FFT", ConvImplicitInput, with(func(a *cudnnAlgoPerf) { a.Algo = 2; a.Determinism = 0 }), true},
		{"workspace over the bound", ConvImplicitInput, with(func(a *cudnnAlgoPerf) { a.Memory = cudnnWorkspaceMax + 1 }), false},
		{"non-deterministic over the bound", ConvImplicitFilter, with(func(a *cudnnAlgoPerf) { a.Determinism = 0; a.Memory = cudnnWorkspaceMax + 1 }), false},
	} {
		got, found := chooseCuDNNAlgo(c.pass, []cudnnAlgoPerf{c.bad, ok}, CuDNNDeterministic)
		if !found || got != ok {
			t.Errorf("%s: chose %+v (found %t), want the second entry", c.name, got, found)
		}
		if _, found := chooseCuDNNAlgo(c.pass, []cudnnAlgoPerf{c.bad}, CuDNNDeterministic); found {
			t.Errorf("%s: taken alone", c.name)
		}
		want := ok
		if c.heuristic {
			want = c.bad
		}
		if got, found := chooseCuDNNAlgo(c.pass, []cudnnAlgoPerf{c.bad, ok}, CuDNNHeuristic); !found || got != want {
			t.Errorf("%s, cuDNN's own pick: chose %+v (found %t), want %+v", c.name, got, found, want)
		}
	}
	// the default math is FMA for fp32 before Ampere and passes; an
	// excluded number of another pass is not excluded for this one (∂x's 4
	// and the forward's 6 are the fused Winograd)
	for _, c := range []struct {
		pass ConvPath
		algo int32
	}{{ConvImplicitInput, 4}, {ConvImplicitForward, 6}, {ConvImplicitFilter, 3}, {ConvImplicitForward, 2}} {
		fine := with(func(a *cudnnAlgoPerf) { a.MathType = cudnnDefaultMath; a.Algo = c.algo })
		if got, _ := chooseCuDNNAlgo(c.pass, []cudnnAlgoPerf{fine, ok}, CuDNNDeterministic); got != fine {
			t.Errorf("pass %v algorithm %d in default math turned down: chose %+v", c.pass, c.algo, got)
		}
	}
	if unsafe.Sizeof(cudnnAlgoPerf{}) != 48 || unsafe.Offsetof(cudnnAlgoPerf{}.Memory) != 16 || unsafe.Offsetof(cudnnAlgoPerf{}.Determinism) != 24 {
		t.Errorf("cudnnAlgoPerf: %d bytes, memory at %d, determinism at %d; cudnn_cnn.h's struct is 48 bytes with them at 16 and 24",
			unsafe.Sizeof(cudnnAlgoPerf{}), unsafe.Offsetof(cudnnAlgoPerf{}.Memory), unsafe.Offsetof(cudnnAlgoPerf{}.Determinism))
	}
}
