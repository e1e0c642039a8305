package opencl

// cuDNN's convolutions on the CUDA driver (doc.go, "The CUDA driver"):
// with the convolution path ConvCuDNN (LLPFC_OPENCL_CONV=cudnn, --device
// cuda only) Conv2d and its two product gradients are one call each of
// NVIDIA's cuDNN, the library PyTorch's convolutions run on, instead of
// im2col and a cuBLAS product. The bias and its gradient stay ours.
//
// Provenance of the bindings (cuda_abi_test.go checks each signature and
// constant against the prototypes quoted from it): cudnn_graph.h,
// cudnn_ops.h and cudnn_cnn.h of cuDNN 9.2.1 (and cudnn_ops_infer.h,
// cudnn_cnn_infer.h, cudnn_cnn_train.h of 8.9), as bindgen translated
// them in github.com/chelsea0x3b/cudarc@78d9b3118f6e13c8a0524d34827db5cfe9f7a53d
// src/cudnn/sys/mod.rs, read 2026-12-03: every function bound here, the
// perf structs' layout and the enum values are the same in 8.9, 9.1 and
// 9.2.1. cuDNN 9 deprecates this "legacy" convolution API and keeps it
// (libcudnn_cnn.so.9, behind the libcudnn.so.9 shim); it is the one that
// takes a device pointer and a stream as cuBLAS does.
//
// Numerics. Every convolution descriptor is set to CUDNN_FMA_MATH (no
// tensor cores, so no TF32: the peer is PyTorch fp32 with TF32 off, which
// sets the same math type), and each pass's algorithm is the first of
// cuDNN's heuristic ranking (cudnnGet…Algorithm_v7) that is deterministic
// (the same seed gives the same numbers), runs in FMA math, is neither an
// FFT nor the non-fused Winograd (transforms of larger tiles, whose
// rounding can reach the device check's 1e-5 relative error; the fused
// Winograd's small tiles stay well inside it, as the direct and GEMM
// algorithms do), and needs at most cudnnWorkspaceMax bytes of workspace
// (CuDNNDeterministic; CuDNNHeuristic, for timing what those
// restrictions cost, keeps only the FMA math and the workspace bound).
// The choice is made once per geometry and kept.

import (
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"sync"
)

const (
	cudnnLibEnv  = "LLPFC_CUDNN_LIB"
	cudnnPackage = "NVIDIA's cuDNN 9 or 8 (libcudnn.so.9: the nvidia-cudnn wheel PyTorch installs, site-packages/nvidia/cudnn/lib)"
	// cudnnWorkspaceMax bounds one algorithm's workspace (what the memory
	// plan counts for the cuDNN path: Lib.WorkspaceBytes).
	cudnnWorkspaceMax = 1 << 30
)

// cuDNN's enum values (cudnn_graph.h, cudnn_cnn.h; the same in 8.9).
const (
	cudnnTensorNCHW        = 0 // CUDNN_TENSOR_NCHW
	cudnnDataFloat         = 0 // CUDNN_DATA_FLOAT
	cudnnCrossCorrelation  = 1 // CUDNN_CROSS_CORRELATION: no filter flip, as Conv2dIm2col
	cudnnDefaultMath       = 0 // CUDNN_DEFAULT_MATH (TF32 allowed on Ampere and later)
	cudnnTensorOpMath      = 1 // CUDNN_TENSOR_OP_MATH
	cudnnTensorOpMathAllow = 2 // CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION
	cudnnFMAMath           = 3 // CUDNN_FMA_MATH: FMA instructions only
	cudnnDeterministic     = 1 // CUDNN_DETERMINISTIC
	cudnnAlgoSlots         = 16
)

// cudnnExcluded are each pass's algorithms the choice skips: the FFTs and
// the non-fused Winograd (cudnnConvolutionFwdAlgo_t FFT 4, FFT_TILING 5,
// WINOGRAD_NONFUSED 7; cudnnConvolutionBwdDataAlgo_t 2, 3, 5;
// cudnnConvolutionBwdFilterAlgo_t FFT 2, WINOGRAD_NONFUSED 5, FFT_TILING 6).
var cudnnExcluded = map[ConvPath][]int32{
	ConvImplicitForward: {4, 5, 7},
	ConvImplicitInput:   {2, 3, 5},
	ConvImplicitFilter:  {2, 5, 6},
}

// CuDNNAlgos is how the cuDNN path chooses each pass's algorithm from
// cuDNN's heuristic ranking.
type CuDNNAlgos int

const (
	// CuDNNDeterministic takes the first that is deterministic (the same
	// seed gives the same numbers), in FMA math, neither an FFT nor the
	// non-fused Winograd (rounding within the device check's bound) and
	// within cudnnWorkspaceMax: the default.
	CuDNNDeterministic CuDNNAlgos = iota
	// CuDNNHeuristic takes the first in FMA math within cudnnWorkspaceMax,
	// deterministic or not, FFT and non-fused Winograd allowed: cuDNN's own
	// pick, as PyTorch takes it with cudnn.benchmark and
	// cudnn.deterministic off, for timing what CuDNNDeterministic's
	// restrictions cost. Runs with the same seed may differ.
	CuDNNHeuristic
)

type (
	cudnnH    uintptr
	cudnnDesc uintptr
)

// cudnnAlgoPerf is cudnnConvolution{Fwd,BwdData,BwdFilter}AlgoPerf_t (the
// three have this one layout: 48 bytes).
type cudnnAlgoPerf struct {
	Algo        int32
	Status      int32
	Time        float32
	Memory      uintptr
	Determinism int32
	MathType    int32
	Reserved    [3]int32
}

// cudnnAPI holds cuDNN's functions.
type cudnnAPI struct {
	GetVersion                   func() uintptr
	GetErrorString               func(code int32) string
	Create                       func(h *cudnnH) int32
	Destroy                      func(h cudnnH) int32
	SetStream                    func(h cudnnH, s cuStream) int32
	CreateTensorDescriptor       func(d *cudnnDesc) int32
	DestroyTensorDescriptor      func(d cudnnDesc) int32
	SetTensor4dDescriptor        func(d cudnnDesc, format, dataType, n, c, h, w int32) int32
	CreateFilterDescriptor       func(d *cudnnDesc) int32
	DestroyFilterDescriptor      func(d cudnnDesc) int32
	SetFilter4dDescriptor        func(d cudnnDesc, dataType, format, k, c, h, w int32) int32
	CreateConvolutionDescriptor  func(d *cudnnDesc) int32
	DestroyConvolutionDescriptor func(d cudnnDesc) int32
	SetConvolution2dDescriptor   func(d cudnnDesc, padH, padW, u, v, dilationH, dilationW, mode, computeType int32) int32
	SetConvolutionMathType       func(d cudnnDesc, mathType int32) int32
	GetForwardAlgorithm          func(h cudnnH, x, w, conv, y cudnnDesc, requested int32, returned *int32, perf *cudnnAlgoPerf) int32
	GetBackwardDataAlgorithm     func(h cudnnH, w, dy, conv, dx cudnnDesc, requested int32, returned *int32, perf *cudnnAlgoPerf) int32
	GetBackwardFilterAlgorithm   func(h cudnnH, x, dy, conv, dw cudnnDesc, requested int32, returned *int32, perf *cudnnAlgoPerf) int32
	Forward                      func(h cudnnH, alpha *float32, xd cudnnDesc, x uint64, wd cudnnDesc, w uint64, conv cudnnDesc, algo int32, ws uint64, wsBytes uintptr, beta *float32, yd cudnnDesc, y uint64) int32
	BackwardData                 func(h cudnnH, alpha *float32, wd cudnnDesc, w uint64, dyd cudnnDesc, dy uint64, conv cudnnDesc, algo int32, ws uint64, wsBytes uintptr, beta *float32, dxd cudnnDesc, dx uint64) int32
	BackwardFilter               func(h cudnnH, alpha *float32, xd cudnnDesc, x uint64, dyd cudnnDesc, dy uint64, conv cudnnDesc, algo int32, ws uint64, wsBytes uintptr, beta *float32, dwd cudnnDesc, dw uint64) int32
	AddTensor                    func(h cudnnH, alpha *float32, ad cudnnDesc, a uint64, beta *float32, cd cudnnDesc, c uint64) int32
}

var (
	cudnnOnce sync.Once
	cudnn     cudnnAPI
	cudnnErr  error
	cudnnFile string
)

// cudnnSymbols are cuDNN's functions (no versioned names).
func cudnnSymbols() []symbol {
	return []symbol{
		{"cudnnGetVersion", &cudnn.GetVersion},
		{"cudnnGetErrorString", &cudnn.GetErrorString},
		{"cudnnCreate", &cudnn.Create},
		{"cudnnDestroy", &cudnn.Destroy},
		{"cudnnSetStream", &cudnn.SetStream},
		{"cudnnCreateTensorDescriptor", &cudnn.CreateTensorDescriptor},
		{"cudnnDestroyTensorDescriptor", &cudnn.DestroyTensorDescriptor},
		{"cudnnSetTensor4dDescriptor", &cudnn.SetTensor4dDescriptor},
		{"cudnnCreateFilterDescriptor", &cudnn.CreateFilterDescriptor},
		{"cudnnDestroyFilterDescriptor", &cudnn.DestroyFilterDescriptor},
		{"cudnnSetFilter4dDescriptor", &cudnn.SetFilter4dDescriptor},
		{"cudnnCreateConvolutionDescriptor", &cudnn.CreateConvolutionDescriptor},
		{"cudnnDestroyConvolutionDescriptor", &cudnn.DestroyConvolutionDescriptor},
		{"cudnnSetConvolution2dDescriptor", &cudnn.SetConvolution2dDescriptor},
		{"cudnnSetConvolutionMathType", &cudnn.SetConvolutionMathType},
		{"cudnnGetConvolutionForwardAlgorithm_v7", &cudnn.GetForwardAlgorithm},
		{"cudnnGetConvolutionBackwardDataAlgorithm_v7", &cudnn.GetBackwardDataAlgorithm},
		{"cudnnGetConvolutionBackwardFilterAlgorithm_v7", &cudnn.GetBackwardFilterAlgorithm},
		{"cudnnConvolutionForward", &cudnn.Forward},
		{"cudnnConvolutionBackwardData", &cudnn.BackwardData},
		{"cudnnConvolutionBackwardFilter", &cudnn.BackwardFilter},
		{"cudnnAddTensor", &cudnn.AddTensor},
	}
}

// cudnnSublibraries are what cuDNN 9's shim opens by name when a function
// is first called, in dependency order: preloaded from the shim's own
// folder, so that a cuDNN found by path (a Python wheel's) works without
// that folder on the loader's path (a library already loaded is found by
// its name).
var cudnnSublibraries = []string{"libcudnn_graph.so.*", "libcudnn_engines_precompiled.so.*", "libcudnn_engines_runtime_compiled.so.*",
	"libcudnn_heuristic.so.*", "libcudnn_ops.so.*", "libcudnn_cnn.so.*"}

// loadCuDNN opens cuDNN once per process (9 before 8).
func loadCuDNN() error {
	cudnnOnce.Do(func() {
		files := libCandidates(cudnnLibEnv, "libcudnn.so.9", "libcudnn.so.8", "libcudnn.so")
		cudnnFile, cudnnErr = bindFirst(files, cudnnLibEnv, cudnnPackage, cudnnSymbols(), func(f string) { preload(f, cudnnSublibraries...) })
	})
	return cudnnErr
}

// CuDNNAvailable reports whether cuDNN loads (the error names the file
// and LLPFC_CUDNN_LIB), and its version (e.g. "9.13.0").
func CuDNNAvailable() (string, error) {
	if err := loadCuDNN(); err != nil {
		return "", err
	}
	v := int(cudnn.GetVersion())
	if v >= 90000 { // 9.x encodes major·10000 + minor·100 + patch, 8.x major·1000 + minor·100 + patch
		return fmt.Sprintf("%d.%d.%d", v/10000, v%10000/100, v%100), nil
	}
	return fmt.Sprintf("%d.%d.%d", v/1000, v%1000/100, v%100), nil
}

// cudnnCheck wraps a failed cuDNN call.
func cudnnCheck(code int32, call, what string) error {
	if code == 0 {
		return nil
	}
	name := "unknown cudnnStatus_t"
	if cudnn.GetErrorString != nil {
		name = cudnn.GetErrorString(code)
	}
	return &Error{Call: call, What: what, Code: code, Name: name}
}

// cudnnPlan is one geometry's descriptors and each pass's algorithm.
type cudnnPlan struct {
	x, y, bias, w, conv cudnnDesc
	algo                map[ConvPath]cudnnAlgoPerf
}

// cudnnState is a CUDA context's cuDNN handle (bound to its stream) and
// the plans by geometry. The workspace is the library's (Lib.cudnnPass):
// a buffer like any other, counted and freed as they are.
type cudnnState struct {
	h     cudnnH
	plans map[ConvGeom]*cudnnPlan
}

// dnn returns the context's cuDNN state, making the handle on first use.
// The context must be bound.
func (d *cudaCtx) dnn() (*cudnnState, error) {
	if d.cudnn != nil {
		return d.cudnn, nil
	}
	if err := loadCuDNN(); err != nil {
		return nil, err
	}
	s := &cudnnState{plans: map[ConvGeom]*cudnnPlan{}}
	if err := cudnnCheck(cudnn.Create(&s.h), "cudnnCreate", ""); err != nil {
		return nil, err
	}
	liveObjects.Add(1)
	if err := cudnnCheck(cudnn.SetStream(s.h, d.stream), "cudnnSetStream", ""); err != nil {
		return nil, errors.Join(err, s.release()) // never a handle on another stream
	}
	d.cudnn = s
	return s, nil
}

// plan returns g's descriptors and algorithms, making them on first use
// with the rule algos (the context's, SetCuDNNAlgos).
func (s *cudnnState) plan(g ConvGeom, algos CuDNNAlgos) (*cudnnPlan, error) {
	if p := s.plans[g]; p != nil {
		return p, nil
	}
	p := &cudnnPlan{algo: map[ConvPath]cudnnAlgoPerf{}}
	if err := s.makePlan(p, g, algos); err != nil {
		return nil, errors.Join(err, p.release()) // a half-made plan is never kept
	}
	s.plans[g] = p
	return p, nil
}

// makePlan makes p's descriptors for g and chooses each pass's algorithm.
func (s *cudnnState) makePlan(p *cudnnPlan, g ConvGeom, algos CuDNNAlgos) error {
	geo := fmt.Sprintf("%+v", g)
	for _, t := range []*cudnnDesc{&p.x, &p.y, &p.bias} {
		if err := cudnnCheck(cudnn.CreateTensorDescriptor(t), "cudnnCreateTensorDescriptor", geo); err != nil {
			return err
		}
		liveObjects.Add(1)
	}
	if err := cudnnCheck(cudnn.CreateFilterDescriptor(&p.w), "cudnnCreateFilterDescriptor", geo); err != nil {
		return err
	}
	liveObjects.Add(1)
	if err := cudnnCheck(cudnn.CreateConvolutionDescriptor(&p.conv), "cudnnCreateConvolutionDescriptor", geo); err != nil {
		return err
	}
	liveObjects.Add(1)
	i32 := func(v int) int32 { return int32(v) }
	if err := errors.Join(
		cudnnCheck(cudnn.SetTensor4dDescriptor(p.x, cudnnTensorNCHW, cudnnDataFloat, i32(g.N), i32(g.C), i32(g.H), i32(g.W)), "cudnnSetTensor4dDescriptor", "x "+geo),
		cudnnCheck(cudnn.SetTensor4dDescriptor(p.y, cudnnTensorNCHW, cudnnDataFloat, i32(g.N), i32(g.O), i32(g.OutH()), i32(g.OutW())), "cudnnSetTensor4dDescriptor", "y "+geo),
		cudnnCheck(cudnn.SetTensor4dDescriptor(p.bias, cudnnTensorNCHW, cudnnDataFloat, 1, i32(g.O), 1, 1), "cudnnSetTensor4dDescriptor", "bias "+geo),
		cudnnCheck(cudnn.SetFilter4dDescriptor(p.w, cudnnDataFloat, cudnnTensorNCHW, i32(g.O), i32(g.C), i32(g.K), i32(g.K)), "cudnnSetFilter4dDescriptor", geo),
		cudnnCheck(cudnn.SetConvolution2dDescriptor(p.conv, i32(g.Pad), i32(g.Pad), i32(g.Stride), i32(g.Stride), 1, 1, cudnnCrossCorrelation, cudnnDataFloat),
			"cudnnSetConvolution2dDescriptor", geo),
		cudnnCheck(cudnn.SetConvolutionMathType(p.conv, cudnnFMAMath), "cudnnSetConvolutionMathType", "CUDNN_FMA_MATH"),
	); err != nil {
		return err
	}
	var perf [cudnnAlgoSlots]cudnnAlgoPerf
	for _, pass := range []ConvPath{ConvImplicitForward, ConvImplicitInput, ConvImplicitFilter} {
		var n int32
		var code int32
		call := ""
		switch pass {
		case ConvImplicitForward:
			call, code = "cudnnGetConvolutionForwardAlgorithm_v7", cudnn.GetForwardAlgorithm(s.h, p.x, p.w, p.conv, p.y, cudnnAlgoSlots, &n, &perf[0])
		case ConvImplicitInput:
			call, code = "cudnnGetConvolutionBackwardDataAlgorithm_v7", cudnn.GetBackwardDataAlgorithm(s.h, p.w, p.y, p.conv, p.x, cudnnAlgoSlots, &n, &perf[0])
		default:
			call, code = "cudnnGetConvolutionBackwardFilterAlgorithm_v7", cudnn.GetBackwardFilterAlgorithm(s.h, p.x, p.y, p.conv, p.w, cudnnAlgoSlots, &n, &perf[0])
		}
		if err := cudnnCheck(code, call, geo); err != nil {
			return err
		}
		a, ok := chooseCuDNNAlgo(pass, perf[:min(max(n, 0), cudnnAlgoSlots)], algos)
		if !ok {
			what := "deterministic, in FMA math, neither an FFT nor the non-fused Winograd,"
			if algos == CuDNNHeuristic {
				what = "in FMA math"
			}
			return fmt.Errorf("opencl: of the %d algorithms %s ranked for the %s pass of %s, none is %s and within %d MiB of workspace: use LLPFC_OPENCL_CONV=im2col",
				n, call, convPassNames[bits.TrailingZeros8(uint8(pass))], geo, what, cudnnWorkspaceMax>>20)
		}
		p.algo[pass] = a
	}
	return nil
}

// chooseCuDNNAlgo is the first of cuDNN's ranking that ran its heuristic
// (status 0), runs in FMA math (not tensor ops: TF32) and needs at most
// cudnnWorkspaceMax bytes, and with CuDNNDeterministic is also
// deterministic and not one of the pass's cudnnExcluded.
func chooseCuDNNAlgo(pass ConvPath, ranked []cudnnAlgoPerf, algos CuDNNAlgos) (cudnnAlgoPerf, bool) {
	for _, a := range ranked {
		if a.Status != 0 || a.MathType == cudnnTensorOpMath || a.MathType == cudnnTensorOpMathAllow || a.Memory > cudnnWorkspaceMax {
			continue
		}
		if algos == CuDNNHeuristic || a.Determinism == cudnnDeterministic && !slices.Contains(cudnnExcluded[pass], a.Algo) {
			return a, true
		}
	}
	return cudnnAlgoPerf{}, false
}

// release frees what the state made (the context bound).
func (s *cudnnState) release() error {
	var errs []error
	for _, p := range s.plans {
		errs = append(errs, p.release())
	}
	s.plans = nil
	if s.h != 0 {
		errs = append(errs, cudnnCheck(cudnn.Destroy(s.h), "cudnnDestroy", ""))
		s.h = 0
		liveObjects.Add(-1)
	}
	return errors.Join(errs...)
}

// release destroys the plan's descriptors (those made).
func (p *cudnnPlan) release() error {
	var errs []error
	for _, d := range []struct {
		desc    *cudnnDesc
		destroy func(cudnnDesc) int32
		call    string
	}{
		{&p.x, cudnn.DestroyTensorDescriptor, "cudnnDestroyTensorDescriptor"},
		{&p.y, cudnn.DestroyTensorDescriptor, "cudnnDestroyTensorDescriptor"},
		{&p.bias, cudnn.DestroyTensorDescriptor, "cudnnDestroyTensorDescriptor"},
		{&p.w, cudnn.DestroyFilterDescriptor, "cudnnDestroyFilterDescriptor"},
		{&p.conv, cudnn.DestroyConvolutionDescriptor, "cudnnDestroyConvolutionDescriptor"},
	} {
		if *d.desc != 0 {
			errs = append(errs, cudnnCheck(d.destroy(*d.desc), d.call, ""))
			*d.desc = 0
			liveObjects.Add(-1)
		}
	}
	return errors.Join(errs...)
}

// dnnPlan returns g's plan (the context bound by the caller).
func (d *cudaCtx) dnnPlan(g ConvGeom) (*cudnnPlan, error) {
	s, err := d.dnn()
	if err != nil {
		return nil, err
	}
	return s.plan(g, d.dnnAlgos)
}

// dnnWorkspace is the workspace in bytes the algorithm of g's pass needs.
func (d *cudaCtx) dnnWorkspace(pass ConvPath, g ConvGeom) (uintptr, error) {
	unbind, err := d.bind()
	if err != nil {
		return 0, err
	}
	defer unbind()
	p, err := d.dnnPlan(g)
	if err != nil {
		return 0, err
	}
	return p.algo[pass].Memory, nil
}

// convDNN runs one pass of g on cuDNN: the forward (a = x, b = w, out =
// y, bias added when bias ≠ 0), the input's gradient (a = w, b = dy, out
// = dx) or the filter's (a = x, b = dy, out = dw), with the workspace ws
// of wsBytes (at least dnnWorkspace's); every output is overwritten
// (β = 0).
func (d *cudaCtx) convDNN(pass ConvPath, g ConvGeom, a, b, bias, out, ws clMem, wsBytes uintptr) error {
	unbind, err := d.bind()
	if err != nil {
		return err
	}
	defer unbind()
	p, err := d.dnnPlan(g)
	if err != nil {
		return err
	}
	s := d.cudnn
	algo := p.algo[pass]
	if wsBytes < algo.Memory {
		return fmt.Errorf("opencl: convDNN: a workspace of %d bytes, algorithm %d needs %d", wsBytes, algo.Algo, algo.Memory)
	}
	one, zero := float32(1), float32(0)
	what := fmt.Sprintf("%+v, algorithm %d", g, algo.Algo)
	w64 := uint64(ws)
	switch pass {
	case ConvImplicitForward:
		if err := cudnnCheck(cudnn.Forward(s.h, &one, p.x, uint64(a), p.w, uint64(b), p.conv, algo.Algo, w64, wsBytes, &zero, p.y, uint64(out)),
			"cudnnConvolutionForward", what); err != nil || bias == 0 {
			return err
		}
		return cudnnCheck(cudnn.AddTensor(s.h, &one, p.bias, uint64(bias), &one, p.y, uint64(out)), "cudnnAddTensor", "the bias, "+what)
	case ConvImplicitInput:
		return cudnnCheck(cudnn.BackwardData(s.h, &one, p.w, uint64(a), p.y, uint64(b), p.conv, algo.Algo, w64, wsBytes, &zero, p.x, uint64(out)),
			"cudnnConvolutionBackwardData", what)
	case ConvImplicitFilter:
		return cudnnCheck(cudnn.BackwardFilter(s.h, &one, p.x, uint64(a), p.y, uint64(b), p.conv, algo.Algo, w64, wsBytes, &zero, p.w, uint64(out)),
			"cudnnConvolutionBackwardFilter", what)
	}
	return fmt.Errorf("opencl: convDNN: pass %d", pass)
}

// CuDNNWorkspaceBytes is the workspace cuDNN's algorithm for g's pass
// needs (choosing the algorithms of g if none was chosen yet).
func (c *Context) CuDNNWorkspaceBytes(pass ConvPath, g ConvGeom) (int, error) {
	if c.cu == nil {
		return 0, errNoCuDNN
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return 0, errClosed
	}
	n, err := c.cu.dnnWorkspace(pass, g)
	return int(n), err
}

var errNoCuDNN = errors.New("opencl: cuDNN's convolutions run on the CUDA driver only (--device cuda)")

// SetCuDNNAlgos sets how the cuDNN path chooses its algorithms, before
// its first convolution (a choice is kept per geometry: changing the rule
// after one was made is an error).
func (c *Context) SetCuDNNAlgos(a CuDNNAlgos) error {
	if c.cu == nil {
		return errNoCuDNN
	}
	if a != CuDNNDeterministic && a != CuDNNHeuristic {
		return fmt.Errorf("opencl: unknown cuDNN algorithm rule %d", a)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errClosed
	}
	if s := c.cu.cudnn; s != nil && len(s.plans) > 0 && c.cu.dnnAlgos != a {
		return errors.New("opencl: SetCuDNNAlgos after cuDNN chose algorithms by another rule")
	}
	c.cu.dnnAlgos = a
	return nil
}

// ConvCuDNN enqueues one pass of a convolution on cuDNN on a CUDA
// context's stream (convDNN's arguments; bias nil for none, ws nil when
// CuDNNWorkspaceBytes is 0).
func (c *Context) ConvCuDNN(pass ConvPath, g ConvGeom, a, b, bias, out, ws *Buffer) error {
	if c.cu == nil {
		return errNoCuDNN
	}
	for _, x := range []*Buffer{a, b, bias, out, ws} {
		if x != nil && x.ctx != c {
			return errors.New("opencl: ConvCuDNN: a buffer of another context")
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closed {
		return errClosed
	}
	var bm, wm clMem
	var wsBytes uintptr
	if bias != nil {
		bm = bias.mem
	}
	if ws != nil {
		wm, wsBytes = ws.mem, uintptr(4*ws.Len())
	}
	return c.enqueueConvDNN(pass, g, a.mem, b.mem, bm, out.mem, wm, wsBytes)
}
