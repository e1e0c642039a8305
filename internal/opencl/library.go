package opencl

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"
	"sync"
)

//go:embed kernels/*.cl
var kernelFiles embed.FS

// KernelSource returns the kernel library's OpenCL C source: the files of
// kernels/ concatenated in name order.
func KernelSource() string {
	names, err := fs.Glob(kernelFiles, "kernels/*.cl")
	if err != nil {
		panic(err) // the pattern is constant
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		src, err := kernelFiles.ReadFile(n)
		if err != nil {
			panic(err)
		}
		fmt.Fprintf(&b, "// ---- %s\n", n)
		b.Write(src)
		b.WriteString("\n")
	}
	return b.String()
}

// kernelNames are the kernels the library looks up when it is built.
var kernelNames = []string{
	"unary", "binary", "axpy", "scale", "nonfinite",
	"repeat_axis", "transpose_nd",
	"reduce_axes", "softmax_axis", "softmax_grad_axis", "argmax_rows",
	"fc_loss", "fc_loss_grad",
	"conv_im2col", "conv_col2im", "rows_to_nchw", "nchw_to_rows", "g_im2col", "g_col2im",
	"conv_igemm_fwd", "conv_igemm_bwd_data", "conv_igemm_bwd_filter", "conv_igemm_reduce",
	"bn_stats", "bn_coeffs", "bn_stats_split", "bn_coeffs_split", "bn_affine", "bn_eval", "bn_grad_sums", "bn_grad_dx", "bn_collect", "bn_running", "bn_fold_split", "bn_finish_split",
	"bn_moments_part", "bn_moments_merge", "bn_grad_sums_part", "bn_grad_sums_merge",
	"pool2_fwd", "pool2_bwd", "maxpool_fwd", "maxpool_bwd",
	"sgd_step", "adam_step",
	"guard_check", "loss_tally", "bn_running_split",
	"bias_add", "relu_mask",
	"philox_block", "dropout", "crop_flip",
	"rows_normalize", "tally_scaled", "tally_neg_entropy",
}

// Work-group sizes: element-wise kernels run in groups of elemWG, the
// reductions in groups of the largest power of two ≤ redWG that the
// kernel allows (RED_WG in 00_common.cl). Fixed sizes keep PoCL from
// compiling a work-group function per size.
const (
	elemWG = 64
	redWG  = 256
)

// Lib is the kernel library built for one context: a typed wrapper per
// operation. Wrappers check shapes and buffer sizes, then enqueue; they
// may be called from several goroutines (each wrapper's launches are
// enqueued together).
type Lib struct {
	ctx     *Context
	prog    *Program
	k       map[string]*Kernel
	fp64    bool
	options string

	mu    sync.Mutex // serialises multi-launch wrappers and guards the workspaces
	wsA   *Buffer    // workspaces of the convolutions
	wsB   *Buffer
	wsR   *Buffer // partial results of two-stage reductions
	WSMax int     // the most elements a convolution workspace may hold (workspaceElems)
	// Conv is how Conv2d and its gradients run (ConvPath; the OpenCL back
	// end sets it from LLPFC_OPENCL_CONV when it opens, before any
	// convolution runs, and nothing changes it while one may be running).
	Conv ConvPath
	// GroupPerChannel launches batch norm's statistics and gradient sums
	// one work-group a channel, and splits a Sum's outputs only when there
	// are fewer than 64, as before the reductions were sliced (channelSlices):
	// the back end sets it from LLPFC_OPENCL_REDUCE=channel when it opens,
	// for the GPU kit's sweep to time both.
	GroupPerChannel bool
	// noFlag is the never-set step flag of unguarded optimizer updates.
	noFlag *StepFlag
}

// BuildOptions returns the compiler options the library is built with on
// a device: double accumulators where the device has them, and
// correctly rounded float division and square root where it offers them.
func BuildOptions(dev DeviceInfo) string {
	var opts []string
	if dev.FP64 {
		opts = append(opts, "-DLLPFC_FP64=1")
	}
	if dev.CorrectDivSqrt {
		opts = append(opts, "-cl-fp32-correctly-rounded-divide-sqrt")
	}
	return strings.Join(opts, " ")
}

// Library builds the kernel library on first use (one program; PoCL
// compiles it once and caches it on disk) and returns it; later calls
// return the same library or the same error.
func (c *Context) Library() (*Lib, error) {
	c.libOnce.Do(func() {
		c.lib, c.libErr = buildLib(c)
	})
	return c.lib, c.libErr
}

func buildLib(c *Context) (*Lib, error) {
	var p *Program
	var err error
	opts := BuildOptions(c.dev)
	if c.cu != nil {
		// The same kernels, translated to CUDA C++ for NVRTC.
		cuOpts := CUDABuildOptions(c.dev)
		opts = strings.Join(cuOpts, " ")
		if p, err = c.buildCUDA(CUDAKernelSource(), cuOpts); err != nil {
			return nil, fmt.Errorf("building the kernel library with NVRTC for %s: %w", c.dev.Name, err)
		}
	} else if p, err = c.BuildProgram(KernelSource(), opts); err != nil {
		return nil, fmt.Errorf("building the OpenCL kernel library for %s: %w", c.dev.Name, err)
	}
	l := &Lib{ctx: c, prog: p, k: map[string]*Kernel{}, fp64: c.dev.FP64, options: opts, WSMax: workspaceElems(c.dev)}
	for _, n := range kernelNames {
		k, err := p.Kernel(n)
		if err != nil {
			return nil, err
		}
		l.k[n] = k
	}
	if l.noFlag, err = l.NewStepFlag(); err != nil {
		return nil, err
	}
	return l, nil
}

// workspaceElems is the default size limit of a convolution workspace: a
// 64th of the device's global memory, at least 2^24 elements (64 MiB) and
// at most 2^28 (1 GiB). A convolution whose unfolded images exceed it runs
// in chunks of images, each chunk a few more launches, so a GPU's memory
// buys fewer launches per step (WRN-16-4 at batch 128 unfolds 75M values
// in its widest convolution).
func workspaceElems(d DeviceInfo) int {
	return int(min(max(d.GlobalMemBytes/64/4, 1<<24), 1<<28))
}

// Context is the library's context.
func (l *Lib) Context() *Context { return l.ctx }

// Options are the compiler options the library was built with.
func (l *Lib) Options() string { return l.options }

// CUDAImage says whether the library's CUDA image was compiled by NVRTC
// in this process or read from the disk cache, for a log (the zero value
// on OpenCL).
func (l *Lib) CUDAImage() CUDAImage { return l.prog.CUDAImage() }

// FP64 reports whether the kernels accumulate in double.
func (l *Lib) FP64() bool { return l.fp64 }

// acc converts a host value for an acc_t kernel argument.
func (l *Lib) acc(v float64) any {
	if l.fp64 {
		return v
	}
	return float32(v)
}

// accWords is how many float words an acc_t value takes in a buffer.
func (l *Lib) accWords() int {
	if l.fp64 {
		return 2
	}
	return 1
}

// elem launches an element-wise kernel over n work items.
func (l *Lib) elem(name string, n int, args ...any) error {
	if n == 0 {
		return nil
	}
	return l.k[name].Launch([]int{n}, []int{elemWG}, args...)
}

// groupSize is the work-group size of a reduction kernel: the largest
// power of two ≤ redWG that the kernel allows on the device.
func (l *Lib) groupSize(name string) int {
	g := redWG
	for g > 1 && g > l.k[name].MaxWorkGroupSize() {
		g /= 2
	}
	return g
}

// groups launches a reduction kernel with one work-group per output.
func (l *Lib) groups(name string, groups int, args ...any) error {
	if groups == 0 {
		return nil
	}
	g := l.groupSize(name)
	return l.k[name].Launch([]int{groups * g}, []int{g}, args...)
}

// workspace returns the library's workspace buffer ws (reallocated larger
// when n exceeds it). The caller holds l.mu.
func (l *Lib) workspace(ws **Buffer, n int) (*Buffer, error) {
	if *ws != nil && (*ws).Len() >= n {
		return *ws, nil
	}
	if *ws != nil {
		if err := (*ws).Release(); err != nil {
			return nil, err
		}
		*ws = nil
	}
	b, err := l.ctx.Alloc(n)
	if err != nil {
		return nil, err
	}
	b.SetRole(RoleWorkspace)
	*ws = b
	return b, nil
}

// WorkspaceBytes is the device memory the library's workspaces take
// after running convolutions of the given geometries (each workspace
// grows to the largest chunk any of them needs), for planning before a
// run; reductions' partial results are not counted (a few values per
// output). On the implicit path (l.Conv) the only workspace is the filter
// gradient's partial sums; with some passes implicit and others not, the
// im2col passes' workspaces and those partial sums share wsA, which grows
// to the larger. On cuDNN's path it is the bound on cuDNN's workspace.
func (l *Lib) WorkspaceBytes(gs []ConvGeom) int64 {
	if l.Conv == ConvCuDNN && len(gs) > 0 {
		return cudnnWorkspaceMax // the most one pass's algorithm may take (cuda_dnn.go)
	}
	var a, b int
	for _, g := range gs {
		if l.Conv.Implicit(ConvImplicitFilter) {
			a = max(a, g.implicitWorkspace())
		}
		if l.Conv == ConvImplicit {
			continue
		}
		ckk, hw, _, _ := g.dims()
		step := l.chunk(g, max(ckk, g.O))
		a, b = max(a, ckk*step*hw), max(b, g.O*step*hw)
	}
	return 4 * int64(a+b)
}

// ReleaseWorkspaces frees the library's workspaces (they are allocated
// again when needed).
func (l *Lib) ReleaseWorkspaces() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var err error
	for _, ws := range []**Buffer{&l.wsA, &l.wsB, &l.wsR} {
		if *ws != nil {
			if e := (*ws).Release(); e != nil && err == nil {
				err = e
			}
			*ws = nil
		}
	}
	return err
}

// need checks that each buffer holds at least n elements.
func need(op string, n int, bufs ...namedBuf) error {
	for _, b := range bufs {
		if b.b == nil {
			return fmt.Errorf("opencl: %s: buffer %s is nil", op, b.name)
		}
		if b.b.released {
			return fmt.Errorf("opencl: %s: buffer %s is released", op, b.name)
		}
		if b.b.Len() < n {
			return fmt.Errorf("opencl: %s: buffer %s holds %d elements, want ≥ %d", op, b.name, b.b.Len(), n)
		}
	}
	return nil
}

type namedBuf struct {
	name string
	b    *Buffer
}

func nb(name string, b *Buffer) namedBuf { return namedBuf{name, b} }

// positive checks that every size is ≥ 1.
func positive(op string, sizes ...namedInt) error {
	for _, s := range sizes {
		if s.v < 1 {
			return fmt.Errorf("opencl: %s: %s = %d, want ≥ 1", op, s.name, s.v)
		}
	}
	return nil
}

type namedInt struct {
	name string
	v    int
}

func ni(name string, v int) namedInt { return namedInt{name, v} }
